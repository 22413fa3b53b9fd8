"""``python -m helpers grade``: arguments, the run, the summary on stdout."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Grade submitted notebooks: each runs in a fresh kernel in a temporary "
        "folder, in a sandbox where bubblewrap is installed; the grader calls the "
        "learner's objects on fresh inputs and judges the outputs in its own "
        "process. Exit status 0 whatever the scores. "
        "`python -m helpers grade merge OUT.csv PART.csv ...` merges shards."
    )
    p.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help=".ipynb files, or folders searched for them",
    )
    p.add_argument("--out", default="grades.csv", help="the CSV gradebook (default: grades.csv)")
    p.add_argument("--feedback", metavar="DIR", help="write one Markdown file per submission here")
    p.add_argument(
        "--jobs", type=int, default=1, help="submissions graded in parallel (default: 1)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds per cell, and per exercise when grading (default: 120)",
    )
    p.add_argument(
        "--notebook-timeout",
        type=float,
        default=600.0,
        help="seconds for all of a notebook's cells (default: 600)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the grader's inputs (default: a random one, printed)",
    )
    p.add_argument(
        "--memory",
        type=float,
        default=4.0,
        help="GiB of memory per kernel process (RLIMIT_DATA: heap and anonymous "
        "mappings, not library code; 0 = no limit; default: 4)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads per kernel (default: CPU cores / jobs)",
    )
    p.add_argument(
        "--device",
        default="cpu",
        help="device the learner's code runs on (default: cpu; cuda: the sandbox gets "
        "the NVIDIA device nodes)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows of submissions already in --out and grade only the others",
    )
    p.add_argument(
        "--no-preload",
        action="store_true",
        help="start each kernel as a new process instead of forking it from one that "
        "has torch, IPython and matplotlib imported (Linux; slower, more isolated)",
    )
    p.add_argument(
        "--sandbox",
        choices=("auto", "bwrap", "none"),
        default="auto",
        help="confine each kernel with bubblewrap: auto = where bwrap is installed "
        "(else a loud warning), bwrap = required, none = unconfined "
        "(default: auto)",
    )
    p.add_argument(
        "--no-carry-forward",
        action="store_true",
        help="the strict rule: a module whose only fault lies in a part graded on its own "
        "(a LayerNorm inside the encoder block) gets 0 too (default: its points are carried "
        "forward, with a message naming the part)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_workflow_arguments(p)


def add_workflow_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the instructor's workflow (issue 13): LMS zips, totals, report, shards."""
    p.add_argument(
        "--student-pattern",
        metavar="REGEX",
        help="who submitted a file: a regular expression with a group (?P<student>...) "
        "searched in its path (default: Canvas, then Moodle download names, then "
        "a folder per student)",
    )
    p.add_argument(
        "--totals",
        metavar="CSV",
        help="write one row per student: a column per "
        "notebook and the total, to import into an LMS gradebook",
    )
    p.add_argument(
        "--report",
        metavar="HTML",
        help="write the class report (pass rates, frequent "
        "mistakes, score histogram, errors): one self-contained HTML file",
    )
    p.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only shard K of N (1 <= K <= N), a stable "
        "partition of the submissions; merge with `python -m helpers grade merge`",
    )


def write_outputs(
    gradebook: str, totals: str | None, report: str | None, pattern: str | None
) -> None:
    """Totals and report, from a gradebook already written (one run's, or a merged one)."""
    if not (totals or report):
        return
    from .book import read_rows

    rows = read_rows(gradebook)
    if totals:
        from .lms import compile_pattern, print_totals

        print_totals(rows, totals, compile_pattern(pattern) if pattern else None)
    if report:
        from .report import write_report

        summary = write_report(report, rows)
        print(f"class report ({summary.submissions} submissions) -> {report}", file=sys.stderr)


def shard_filter(text: str) -> Callable[[list], list]:
    """``--shard K/N`` as the grader's ``select`` hook (ValueError for a bad K/N)."""
    from .shard import parse_shard, select

    k, n = parse_shard(text)

    def pick(subs: list) -> list:
        mine = select(subs, k, n)
        print(f"shard {k}/{n}: {len(mine)} of {len(subs)} submissions", file=sys.stderr)
        return mine

    return pick


def merge_main(argv: list[str]) -> int:
    """``python -m helpers grade merge OUT.csv PART.csv ...``."""
    p = argparse.ArgumentParser(
        prog="python -m helpers grade merge",
        description="Merge the gradebooks of shards (--shard K/N) into "
        "one, in the order one unsharded run writes.",
    )
    p.add_argument("out", help="the merged gradebook")
    p.add_argument("parts", nargs="+", metavar="PART", help="the shards' gradebooks")
    p.add_argument("--student-pattern", metavar="REGEX", help="as for `grade`")
    p.add_argument("--totals", metavar="CSV", help="as for `grade`, from the merged gradebook")
    p.add_argument("--report", metavar="HTML", help="as for `grade`, from the merged gradebook")
    args = p.parse_args(argv)
    from .book import GradebookError
    from .lms import compile_pattern
    from .shard import merge

    try:
        if args.student_pattern:
            compile_pattern(args.student_pattern)
        n = merge(args.out, args.parts)
        print(f"merged {len(args.parts)} gradebooks, {n} rows -> {args.out}")
        write_outputs(args.out, args.totals, args.report, args.student_pattern)
    except (GradebookError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


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
    from .lms import ArchiveError, compile_pattern, expanded

    try:
        if args.student_pattern:
            compile_pattern(args.student_pattern)
        pick = shard_filter(args.shard) if args.shard else None
    except ValueError as exc:
        return bad(str(exc))
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.jobs)
    settings = Settings(
        cell_timeout=args.timeout,
        total_timeout=args.notebook_timeout,
        memory_bytes=int(args.memory * 2**30),
        threads=threads,
        seed=seed,
        device=args.device,
        preload=not args.no_preload,
        sandbox=args.sandbox,
        student_pattern=args.student_pattern,
        carry_forward=not args.no_carry_forward,
    )
    try:
        with expanded(args.submissions) as paths:  # each .zip becomes a temporary folder
            result = grade_batch(
                paths,
                args.out,
                feedback=args.feedback,
                jobs=args.jobs,
                settings=settings,
                resume=args.resume,
                progress=not args.no_progress,
                log=lambda m: print(m, file=sys.stderr),
                select=pick,
            )
    except (UsageError, ArchiveError) as exc:
        return bad(str(exc))
    except KeyboardInterrupt:
        print(
            f"interrupted: the submissions graded so far are in {args.out} "
            "(run again with --resume to finish)",
            file=sys.stderr,
        )
        return 130
    print(
        f"graded {result.graded_now} submissions in {result.seconds:.0f} s "
        f"(seed {seed}, {args.jobs} jobs) -> {args.out}"
        + (f", feedback in {args.feedback}/" if args.feedback else "")
    )
    print(
        "sandbox: bubblewrap (one per kernel slot: no network, read-only system, own processes)"
        if result.sandbox == "bwrap"
        else "sandbox: NONE"
    )
    for warning in result.warnings:
        print(warning)
    if result.rows:
        print(summary_table(result))
    write_outputs(args.out, args.totals, args.report, args.student_pattern)
    if result.tampered:
        print(
            "ERROR: the grader's source files changed during the run; do not trust these grades: "
            + ", ".join(result.tampered)
        )
        return 1
    return 0
