"""``python -m helpers grade``: arguments, the run, the summary on stdout."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from . import limits
from .books import outputs


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
    _add_bookkeeping(p)
    _add_limits(p)
    _add_isolation(p)
    outputs.add_arguments(p)


def _add_bookkeeping(p: argparse.ArgumentParser) -> None:
    """Where the grades go, and which part of a class this run grades."""
    p.add_argument("--out", default="grades.csv", help="the CSV gradebook (default: grades.csv)")
    p.add_argument("--feedback", metavar="DIR", help="write one Markdown file per submission here")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the grader's inputs (default: a random one, printed)",
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
        "--shard",
        metavar="K/N",
        help="grade only shard K of N (1 <= K <= N), a stable "
        "partition of the submissions; merge with `python -m helpers grade merge`. "
        "auto: K/N of a Slurm job array; auto/N: K from a Kubernetes Indexed Job",
    )
    p.add_argument(
        "--no-carry-forward",
        action="store_true",
        help="the strict rule: a module whose only fault lies in a part graded on its own "
        "(a LayerNorm inside the encoder block) gets 0 too (default: its points are carried "
        "forward, with a message naming the part)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_limits(p: argparse.ArgumentParser) -> None:
    """How much each kernel may take, and how many run at once."""
    p.add_argument(
        "--jobs", type=int, default=1, help="submissions graded in parallel (default: 1)"
    )
    for flag, (_, value, unit, _, text) in limits.OPTIONS.items():  # declared in limits.py
        p.add_argument(
            flag, type=float, default=value, metavar=unit, help=f"{text} (default: {value:g})"
        )
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads per kernel (default: CPU cores / jobs)",
    )


def _add_isolation(p: argparse.ArgumentParser) -> None:
    """Where the learner's code runs and what confines it."""
    p.add_argument(
        "--device",
        default="cpu",
        help="device the learner's code runs on (default: cpu; cuda: the sandbox gets "
        "the NVIDIA device nodes)",
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


def shard_filter(text: str | None, out: str, seed: int) -> Callable[[list], list]:
    """The grader's ``select`` hook: ``--shard K/N`` (all when None; ValueError for a bad
    K/N), writing the gradebook's record (seed, shard, the submissions it is to hold) before
    anything is graded, so that an interrupted part is known unfinished."""
    from .books.gradebook import write_record
    from .books.shard import parse_shard, select

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
    from .books.gradebook import read_record
    from .books.shard import parse_shard

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


def settings_from(args: argparse.Namespace):
    """The grader's :class:`Settings` from the arguments (UsageError for impossible limits),
    with the seed: the recorded one on ``--resume``, else ``--seed``, else a random one."""
    import secrets

    from .records import Settings, UsageError

    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0 or args.notebook_timeout <= 0:
        raise UsageError("--timeout and --notebook-timeout must be positive")
    if args.memory < 0:
        raise UsageError("--memory must be 0 (no limit) or positive")
    outputs.check_arguments(args)
    seed, said = resume_seed(args)
    if said:
        print(said, file=sys.stderr)
    return Settings(
        **limits.settings_values(lambda flag: getattr(args, flag[2:].replace("-", "_"))),
        threads=args.threads or max(1, (os.cpu_count() or 1) // args.jobs),
        seed=seed if seed is not None else secrets.randbelow(2**31),
        device=args.device,
        preload=not args.no_preload,
        sandbox=args.sandbox,
        student_pattern=args.student_pattern,
        carry_forward=not args.no_carry_forward,
    )


def run(args: argparse.Namespace) -> int:
    from .batch import grade_batch
    from .reading.archives import expanded

    settings = settings_from(args)
    pick = shard_filter(args.shard, args.out, settings.seed)
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
            similar = outputs.code_similarity(paths, args.out) if args.report else None
    except KeyboardInterrupt:
        print(
            f"interrupted: the submissions graded so far are in {args.out} "
            "(run again with --resume to finish)",
            file=sys.stderr,
        )
        return 130
    print_summary(result, args, settings.seed)
    outputs.write_outputs(args.out, args, similar)
    if result.tampered:
        print(
            "ERROR: the grader's source files changed during the run; do not trust these grades: "
            + ", ".join(result.tampered)
        )
        return 1
    return 0


def print_summary(result, args: argparse.Namespace, seed: int) -> None:
    """What the run did, what confined it, its warnings, and the table per notebook."""
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
        print(summary_table(result.rows))


def summary_table(rows: list) -> str:
    """Per notebook: submissions, mean score, and the rows by status."""
    from .books.gradebook import STATUSES, per_submission

    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        d = counts.setdefault(r.notebook or "?", dict.fromkeys(STATUSES, 0))
        if r.status in d:
            d[r.status] += 1
    sums: dict[str, list[tuple[float, float]]] = {}
    for nb, points, max_points in per_submission(rows).values():
        sums.setdefault(nb or "?", []).append((points, max_points))
    head = ["notebook", "submissions", "mean score", *STATUSES]
    lines = []
    for nb, d in sorted(counts.items()):
        mean = sum(p for p, _ in sums[nb]) / len(sums[nb])
        mx = max(m for _, m in sums[nb])
        pct = f" ({100 * mean / mx:.0f} %)" if mx else ""
        lines.append(
            [nb, str(len(sums[nb])), f"{mean:.2f} / {mx:g}{pct}", *(str(d[s]) for s in STATUSES)]
        )
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt = "  ".join(f"{{:{'<' if i < 3 else '>'}{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*head)] + [fmt.format(*ln) for ln in lines])
