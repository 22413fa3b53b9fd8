"""Command line: ``python -m helpers <command> ...`` (``python -m helpers -h`` lists them).

``python -m helpers grade merge OUT.csv PART.csv ...`` merges the gradebooks of shards.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> (module with add_arguments(parser) and run(args) -> exit status, help)
COMMANDS = {
    "student": ("helpers.notebooks.student", "write notebooks/ from solutions/"),
    "export": (
        "helpers.notebooks.export",
        "write helpers/blocks/ from the solutions' #| export cells",
    ),
    "execute": (
        "helpers.notebooks.execute",
        "run solved notebooks in a fresh kernel, store outputs",
    ),
    "bench": ("helpers.notebooks.bench", "time solved notebooks in fresh kernels, write bench/"),
    "grade": ("helpers.grading.cli", "grade submitted notebooks into a CSV gradebook"),
    "nbgrader": ("helpers.grading.nbgrader", "write an nbgrader course (source/, config)"),
    "gradescope": ("helpers.grading.gradescope", "build a Gradescope autograder zip"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["grade", "merge"]:  # a folder named merge: pass it as ./merge
        from .grading.cli import merge_main

        return merge_main(argv[2:])
    parser = argparse.ArgumentParser(prog="python -m helpers", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(module=module)
        importlib.import_module(module).add_arguments(p)
    args = parser.parse_args(argv)
    return importlib.import_module(args.module).run(args)


if __name__ == "__main__":
    sys.exit(main())
