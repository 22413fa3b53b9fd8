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
        "--new-seed",
        action="store_true",
        help="with --resume and a --seed other than the recorded one: grade the rest with it",
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
    add_totals_arguments(p)
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
        "partition of the submissions; merge with `python -m helpers grade merge`. "
        "auto: K/N of a Slurm job array; auto/N: K from a Kubernetes Indexed Job",
    )


def add_totals_arguments(p: argparse.ArgumentParser) -> None:
    """``--totals`` and how it is written (for `grade` and `grade merge`)."""
    p.add_argument(
        "--totals",
        metavar="CSV",
        help="write the totals per student in the file --lms imports as it is",
    )
    p.add_argument(
        "--lms",
        choices=("auto", "canvas", "moodle", "plain"),
        default="auto",
        help="--totals for: canvas (its gradebook import), moodle (an offline grading "
        "worksheet per notebook, CSV_NN.csv), plain (student, id, a column per notebook, "
        "total, late); auto = recognized from the download's file names (default)",
    )
    p.add_argument(
        "--canvas-assignment",
        action="append",
        metavar="NN=ID",
        help="the Canvas assignment id of notebook NN (the number in its URL); repeat per notebook",
    )
    p.add_argument(
        "--policy",
        choices=("latest", "best", "ontime"),
        default="latest",
        help="which of a student's submissions of a notebook counts: latest (as LMSs do; "
        "default), best, ontime (the best on time, else the latest)",
    )
    p.add_argument(
        "--late-penalty",
        type=float,
        default=0.0,
        metavar="PERCENT",
        help="percent of a notebook's points taken off a late submission (default: 0)",
    )


def check_totals_arguments(args: argparse.Namespace) -> None:
    """ValueError for a bad --student-pattern, --canvas-assignment or --late-penalty."""
    from .lms import compile_pattern
    from .lms_export import parse_assignments

    if args.student_pattern:
        compile_pattern(args.student_pattern)
    parse_assignments(args.canvas_assignment)
    if not 0 <= args.late_penalty <= 100:
        raise ValueError("--late-penalty is a percentage between 0 and 100")


def code_similarity(paths: list[str]) -> list:
    """The report's similar-code findings over the notebooks under ``paths`` (similarity.py)."""
    from .similarity import similar_in
    from .submissions import find_submissions

    return similar_in(find_submissions(paths))


def write_outputs(gradebook: str, options: argparse.Namespace, similar=None) -> None:
    """Totals and report, from a gradebook already written (one run's, or a merged one);
    ``similar``: the similar-code findings for the report (None: that section is left out)."""
    totals, report = options.totals, options.report
    if not (totals or report):
        return
    from .book import read_rows

    rows = read_rows(gradebook)
    if totals:
        from .lms_export import print_totals

        print_totals(rows, totals, options)
    if report:
        from .lms import compile_pattern
        from .report import write_report

        pattern = compile_pattern(options.student_pattern) if options.student_pattern else None
        summary = write_report(report, rows, pattern=pattern, similar=similar)
        print(
            f"class report ({summary.students} students, {summary.submissions} files) -> {report}",
            file=sys.stderr,
        )


def shard_filter(text: str | None, out: str, seed: int) -> Callable[[list], list]:
    """The grader's ``select`` hook: ``--shard K/N`` (all when None; ValueError for a bad
    K/N), writing the gradebook's record (seed, shard, the submissions it is to hold) before
    anything is graded, so that an interrupted part is known unfinished."""
    from .book import write_record
    from .shard import parse_shard, select

    k, n = parse_shard(text) if text else (1, 1)

    def pick(subs: list) -> list:
        mine = select(subs, k, n) if text else list(subs)
        if text:
            print(f"shard {k}/{n}: {len(mine)} of {len(subs)} submissions", file=sys.stderr)
        write_record(
            out,
            {
                "seed": seed,
                "shard": [k, n] if text else None,
                "found": len(subs),
                "submissions": sorted(s.label for s in mine),
            },
        )
        return mine

    return pick


def resume_seed(args: argparse.Namespace) -> tuple[int | None, str]:
    """The seed for ``--resume``: the one recorded with ``--out`` (ValueError if ``--seed``
    differs without ``--new-seed``, or the shard differs), and what to say about it."""
    from .book import read_record
    from .shard import parse_shard

    record = read_record(args.out) if args.resume and os.path.exists(args.out) else None
    if record is None:
        return args.seed, ""
    recorded = record.get("seed")
    shard = list(parse_shard(args.shard)) if args.shard else None
    if record.get("shard") != shard:
        raise ValueError(
            f"--resume: {args.out} is shard {record.get('shard') or 'all'}, not "
            f"{shard or 'all'}: give the same --shard, or another --out"
        )
    if args.seed is None or args.seed == recorded:
        return recorded, f"--resume: grading the rest with the recorded seed {recorded}"
    if not args.new_seed:
        raise ValueError(
            f"--resume: {args.out} was graded with seed {recorded}; --seed {args.seed} would "
            "give the rest of the class other inputs. Leave out --seed to keep it, or add "
            "--new-seed to grade the rest with the new one."
        )
    return args.seed, f"--resume --new-seed: the rest gets seed {args.seed}, not {recorded}"


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
    add_totals_arguments(p)
    p.add_argument("--report", metavar="HTML", help="as for `grade`, from the merged gradebook")
    p.add_argument(
        "--similarity-from",
        nargs="+",
        metavar="SUBMISSION",
        help="the submissions (folders, zips) graded: the report gets its similar-code section",
    )
    args = p.parse_args(argv)
    from .book import GradebookError, read_record
    from .records import UsageError
    from .shard import merge

    try:
        check_totals_arguments(args)
        n = merge(args.out, args.parts)
        print(f"merged {len(args.parts)} gradebooks, {n} rows -> {args.out}")
        if read_record(args.out) is None:
            print(
                "warning: the parts have no record (older gradebooks): nothing says whether "
                "a shard is missing",
                file=sys.stderr,
            )
        similar = None
        if args.similarity_from and args.report:
            from .lms import expanded

            with expanded(args.similarity_from) as paths:
                similar = code_similarity(paths)
        write_outputs(args.out, args, similar)
    except (GradebookError, ValueError, UsageError) as exc:
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
    from .book import GradebookError
    from .lms import ArchiveError, expanded

    try:
        check_totals_arguments(args)
        seed, said = resume_seed(args)
        seed = seed if seed is not None else secrets.randbelow(2**31)
        pick = shard_filter(args.shard, args.out, seed)
    except (ValueError, GradebookError) as exc:
        return bad(str(exc))
    if said:
        print(said, file=sys.stderr)
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
            similar = code_similarity(paths) if args.report else None
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
    write_outputs(args.out, args, similar)
    if result.tampered:
        print(
            "ERROR: the grader's source files changed during the run; do not trust these grades: "
            + ", ".join(result.tampered)
        )
        return 1
    return 0
