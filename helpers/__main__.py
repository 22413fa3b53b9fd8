"""Command line: ``python -m helpers {student,export,execute,grade,bench,nbgrader,gradescope} ...``.

``python -m helpers grade merge OUT.csv PART.csv ...`` merges the gradebooks of shards.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["grade", "merge"]:  # a folder named merge: pass it as ./merge
        from .grading.cli import merge_main

        return merge_main(argv[2:])
    parser = argparse.ArgumentParser(prog="python -m helpers", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("student", help="write notebooks/ from solutions/")
    p.add_argument("--check", action="store_true", help="exit 1 if notebooks/ is not current")
    p = sub.add_parser("export", help="write helpers/blocks/ from the solutions' #| export cells")
    p.add_argument("--check", action="store_true", help="exit 1 if helpers/blocks/ is not current")
    p = sub.add_parser("execute", help="run solved notebooks in a fresh kernel, store outputs")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    p = sub.add_parser("bench", help="time solved notebooks in fresh kernels, write bench/")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=Path("bench"), help="folder for bench.md/.json")
    p.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    p.add_argument("--strict", action="store_true", help="exit 1 when over a budget")
    p = sub.add_parser("grade", help="grade submitted notebooks into a CSV gradebook")
    from .grading.cli import add_arguments

    add_arguments(p)
    p = sub.add_parser("nbgrader", help="write an nbgrader course (source/ and nbgrader_config.py)")
    p.add_argument("course", type=Path, help="the course folder (created if needed)")
    p.add_argument("numbers", nargs="*", metavar="NN", help="notebooks (default: all graded ones)")
    p = sub.add_parser("gradescope", help="build a Gradescope autograder zip for one notebook")
    p.add_argument("number", metavar="NN")
    p.add_argument("--out", type=Path, default=None, help="default: autograder_NN.zip")
    args = parser.parse_args(argv)

    if args.command in ("student", "export"):
        from .export import export
        from .student import MarkerError, generate

        try:
            problems = (generate if args.command == "student" else export)(check=args.check)
        except (MarkerError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print(f"run `python -m helpers {args.command}` to regenerate", file=sys.stderr)
            return 1
        print("up to date" if args.check else "done")
        return 0
    if args.command == "execute":
        from .execute import execute

        for path in args.paths:
            seconds = execute(path, timeout=args.timeout)
            print(f"{path}: {seconds:.1f} s")
        return 0
    if args.command == "grade":
        from .grading.cli import run

        return run(args)
    if args.command in ("nbgrader", "gradescope"):
        return _lms_tools(args)
    if args.command == "bench":
        from .bench import main as bench

        return bench(args.paths, args.out, args.timeout, args.strict)
    return 2


def _lms_tools(args: argparse.Namespace) -> int:
    """``nbgrader`` and ``gradescope``: export the series to the instructor's grading tool."""
    try:
        if args.command == "nbgrader":
            from .grading.nbgrader import write_course

            for path in write_course(args.course, args.numbers):
                print(path)
            print(f"nbgrader course in {args.course}: cd {args.course} && "
                  "nbgrader generate_assignment NN_name")
            return 0
        from .grading.gradescope import build_bundle

        if not args.number.isdigit():
            raise ValueError(f"NN is a notebook number, got {args.number!r}")
        out = args.out or Path(f"autograder_{int(args.number):02d}.zip")
        print(f"Gradescope autograder -> {build_bundle(args.number, out)}")
        return 0
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
