"""Every command README.md and the guides give (tests/docs.py: CONTRIBUTING.md, docs/*.md),
checked against what it calls: a ``make`` line names targets the Makefile has and variables it
reads; a ``python -m helpers`` line parses with the real command tree (helpers/__main__.py); any
other command names the test that runs it (``RUN_BY``, checked to mention it) or why none does
(``NOT_RUN``). The commands come from bash (and plain) code blocks, and from inline code that
starts with ``make`` or ``python -m helpers``."""

from __future__ import annotations

import functools
import re
import shlex

import pytest

from helpers.__main__ import parser

from .docs import DOCS, ROOT

FENCE = re.compile(r"^```(\S*)\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`((?:make|(?:\.venv/bin/)?python -m helpers)\b[^`]*)`")
ASSIGNMENT = re.compile(r"^[A-Z_]+=")
SHELL = {"cd", "cp", "cat", "mkdir", "unzip"}  # plumbing around a command
# command (its program and first argument, or a script's name) -> (test file, what it runs)
RUN_BY = {
    "nbgrader generate_assignment": ("tests/grading/test_nbgrader.py", '"generate_assignment"'),
    "nbgrader autograde": ("tests/grading/test_nbgrader.py", '"autograde"'),
    "run_autograder": ("tests/grading/test_instructor_workflow.py", '"run_autograder"'),
}
NOT_RUN = {
    "nbgrader export": "nbgrader's own CSV of its database; test_nbgrader.py reads those scores",
}


def commands() -> list[tuple[str, str]]:
    """(file, command line) for every command the documentation gives."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        lines = INLINE.findall(text)
        for lang, body in FENCE.findall(text):
            if lang not in ("bash", "sh", ""):
                continue
            for line in body.replace("\\\n", " ").splitlines():
                line = re.sub(r"\s+#.*", "", line).strip()
                if line.startswith("#") or not (lang or INLINE.match(f"`{line}`")):
                    continue
                lines.append(line)
        found += [(path.name, cmd) for line in lines for cmd in re.split(r"\s*&&\s*", line) if cmd]
    return list(dict.fromkeys(found))


@functools.cache
def makefile() -> tuple[set[str], str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w.-]+):", text, re.M)), text


def check(command: str) -> None:
    argv = shlex.split(command)
    while argv and ASSIGNMENT.match(argv[0]):  # VAR=value in the command's environment
        argv.pop(0)
    program = argv[0]
    if program == "make":
        targets, text = makefile()
        for arg in argv[1:]:
            if "=" in arg:
                var = arg.split("=")[0]
                assert re.search(rf"\b{var}\b", text), f"the Makefile reads no {var}"
            else:
                assert arg in targets, f"the Makefile has no target {arg}"
    elif argv[1:3] == ["-m", "helpers"] and program.endswith("python"):
        parser().parse_args(argv[3:])  # argparse exits (status 2) on what it does not know
    elif program not in SHELL:
        key = " ".join(argv[:2]) if program == "nbgrader" else argv[-1].rsplit("/", 1)[-1]
        if key in NOT_RUN:
            return
        assert key in RUN_BY, f"no test named in RUN_BY runs {command!r}"
        test, mention = RUN_BY[key]
        assert mention in (ROOT / test).read_text(encoding="utf-8"), f"{test} runs no {key}"


@pytest.mark.parametrize("where, command", commands(), ids=lambda x: x[:70])
def test_a_command_the_docs_give_is_known(where, command):
    try:
        check(command)
    except SystemExit as exc:
        pytest.fail(f"{where}: `{command}`: python -m helpers refuses it (exit {exc.code})")


def test_the_docs_give_the_commands_of_each_guide():
    found = commands()
    where = {w for w, _ in found}
    assert {"README.md", "learners.md", "instructors.md", "maintainers.md"} <= where
    assert ("README.md", "make test") in found and ("README.md", "make lab") in found


@pytest.mark.parametrize(
    "command",
    ["make no-such-target", "make lab NO_SUCH_VARIABLE=1", "python -m helpers grade --no-such-flag",
     "sbatch grade.sbatch"],
)  # fmt: skip
def test_a_wrong_command_is_caught(command):
    with pytest.raises((AssertionError, SystemExit)):
        check(command)
