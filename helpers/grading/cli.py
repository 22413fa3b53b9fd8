"""``python -m helpers grade``: arguments, the run, the summary on stdout."""
from __future__ import annotations

import argparse
import os
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Grade submitted notebooks: each runs in a fresh kernel in a temporary folder, "
                     "the grader calls the learner's objects on fresh inputs and judges the "
                     "outputs in its own process. Exit status 0 whatever the scores.")
    p.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                   help=".ipynb files, or folders searched for them")
    p.add_argument("--out", default="grades.csv", help="the CSV gradebook (default: grades.csv)")
    p.add_argument("--feedback", metavar="DIR", help="write one Markdown file per submission here")
    p.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel (default: 1)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds per cell, and per exercise when grading (default: 120)")
    p.add_argument("--notebook-timeout", type=float, default=600.0,
                   help="seconds for all of a notebook's cells (default: 600)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the grader's inputs (default: a random one, printed)")
    p.add_argument("--memory", type=float, default=4.0,
                   help="GiB of memory per kernel process (RLIMIT_DATA: heap and anonymous "
                        "mappings, not library code; 0 = no limit; default: 4)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads per kernel (default: CPU cores / jobs)")
    p.add_argument("--device", default="cpu", help="device the learner's code runs on (default: cpu)")
    p.add_argument("--resume", action="store_true",
                   help="keep the rows of submissions already in --out and grade only the others")
    p.add_argument("--no-preload", action="store_true",
                   help="start each kernel as a new process instead of forking it from one that "
                        "has torch, IPython and matplotlib imported (Linux; slower, more isolated)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    import secrets

    from .grader import Settings, UsageError, grade_batch, summary_table

    def bad(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    if args.jobs < 1:
        return bad("--jobs must be at least 1")
    if args.timeout <= 0 or args.notebook_timeout <= 0:
        return bad("--timeout and --notebook-timeout must be positive")
    if args.memory < 0:
        return bad("--memory must be 0 (no limit) or positive")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.jobs)
    settings = Settings(cell_timeout=args.timeout, total_timeout=args.notebook_timeout,
                        memory_bytes=int(args.memory * 2**30), threads=threads, seed=seed,
                        device=args.device, preload=not args.no_preload)
    try:
        result = grade_batch(args.submissions, args.out, feedback=args.feedback, jobs=args.jobs,
                             settings=settings, resume=args.resume, progress=not args.no_progress,
                             log=lambda m: print(m, file=sys.stderr))
    except UsageError as exc:
        return bad(str(exc))
    except KeyboardInterrupt:
        print(f"interrupted: the submissions graded so far are in {args.out} "
              "(run again with --resume to finish)", file=sys.stderr)
        return 130
    print(f"graded {result.graded_now} submissions in {result.seconds:.0f} s "
          f"(seed {seed}, {args.jobs} jobs) -> {args.out}"
          + (f", feedback in {args.feedback}/" if args.feedback else ""))
    if result.rows:
        print(summary_table(result))
    return 0
