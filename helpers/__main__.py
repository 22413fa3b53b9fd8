"""Command line: ``python -m helpers <command> ...`` (``python -m helpers -h`` lists them).

One argparse tree holds every command and sub-command (:data:`COMMANDS`). A command with
sub-commands (``grade merge``, ``gradescope run``) is still a command of its own: arguments
that name none of its sub-commands are its own (``grade SUBMISSION...``; a folder named
``merge`` is passed as ``./merge``). A ``ValueError`` a command raises (``UsageError``,
``GradebookError``, ...: bad arguments or input files) is shown as ``error: ...`` with exit
status 2, here and only here.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Command:
    """A module's ``add_arguments(parser)`` and ``run(args) -> exit status`` (or the functions
    named by ``add`` and ``run``), and its sub-commands."""

    module: str
    help: str
    add: str = "add_arguments"
    run: str = "run"
    subcommands: dict[str, Command] = field(default_factory=dict)


COMMANDS = {
    "student": Command("helpers.notebooks.student", "write notebooks/ from solutions/"),
    "export": Command(
        "helpers.notebooks.export", "write helpers/blocks/ from the solutions' #| export cells"
    ),
    "execute": Command(
        "helpers.notebooks.execute", "run solved notebooks in a fresh kernel, store outputs"
    ),
    "bench": Command(
        "helpers.notebooks.bench", "time solved notebooks in fresh kernels, write bench/"
    ),
    "grade": Command(
        "helpers.grading.cli",
        "grade submitted notebooks into a CSV gradebook",
        subcommands={
            "merge": Command(
                "helpers.grading.merge_cli", "merge the gradebooks of shards (--shard K/N)"
            )
        },
    ),
    "nbgrader": Command(
        "helpers.grading.books.nbgrader", "write an nbgrader course (source/, config)"
    ),
    "gradescope": Command(
        "helpers.grading.books.gradescope",
        "build a Gradescope autograder zip",
        subcommands={
            "run": Command(
                "helpers.grading.books.gradescope",
                "inside the autograder: grade the upload into results.json",
                add="add_run_arguments",
                run="run_upload",
            )
        },
    ),
}
OWN = "\0"  # the parser of a command's own arguments among its sub-commands (argv has no NUL)


class _AnyName(tuple):
    """The choices of :class:`_OwnOrSub`: argparse checks ``in choices`` before it calls the
    action, and any first argument is valid (one that names no sub-command is the command's)."""

    def __contains__(self, name) -> bool:
        return True


class _OwnOrSub(argparse._SubParsersAction):
    """Sub-commands beside the command's own arguments: a first argument that names no
    sub-command starts the command's own (registered as :data:`OWN`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.choices = _AnyName()

    def __call__(self, parser, namespace, values, option_string=None):
        if values[0] not in self._name_parser_map:
            values = [OWN, *values]
        super().__call__(parser, namespace, values, option_string)


class _Parser(argparse.ArgumentParser):
    """A parser whose unknown options, in front of a command with sub-commands, are the
    command's own: ``grade --out g.csv SUBMISSION`` reaches ``grade``'s own parser whole."""

    def _parse_optional(self, arg_string):
        own_first = any(isinstance(a, _OwnOrSub) for a in self._actions)
        if own_first and arg_string.split("=", 1)[0] not in self._option_string_actions:
            return None  # an argument for the sub-command's parser (here: the command's own)
        return super()._parse_optional(arg_string)


def _add(sub, name: str, command: Command, prog: str) -> None:
    """The parser of ``command`` (and of its sub-commands) under ``sub``."""
    module = importlib.import_module(command.module)
    p = sub.add_parser(name, help=command.help, description=command.help)
    if not command.subcommands:
        getattr(module, command.add)(p)
        p.set_defaults(command=command)
        return
    inner = p.add_subparsers(
        action=_OwnOrSub, required=True, metavar="|".join([*command.subcommands, "..."]), dest=name
    )
    own = inner.add_parser(OWN, prog=f"{prog} {name}", description=command.help)
    getattr(module, command.add)(own)
    own.set_defaults(command=command)
    own.epilog = "sub-commands: " + "; ".join(
        f"`{prog} {name} {n} -h`: {c.help}" for n, c in command.subcommands.items()
    )
    p.format_help = own.format_help  # `grade -h`: grade's own options, then its sub-commands
    p.format_usage = own.format_usage
    for sub_name, subcommand in command.subcommands.items():
        _add(inner, sub_name, subcommand, f"{prog} {name}")


def parser() -> argparse.ArgumentParser:
    """The whole tree (each command's module is imported to add its arguments)."""
    prog = "python -m helpers"
    p = _Parser(prog=prog, description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="name", required=True)
    for name, command in COMMANDS.items():
        _add(sub, name, command, prog)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    command = args.command
    try:
        return getattr(importlib.import_module(command.module), command.run)(args)
    except ValueError as exc:  # UsageError, GradebookError, ArchiveError, MarkerError ...
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
