"""Solved notebooks -> student notebooks (``python -m helpers student``).

In a solved notebook, each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's
markers) holds the answer. The student version replaces the region by a TODO comment and
``raise NotImplementedError(...)`` at the same indentation (in a markdown cell, by
"_Your answer here._"), clears outputs and execution counts, and drops ``# NBVAL_`` lines.
Text after ``### BEGIN SOLUTION:`` becomes the TODO's wording.
"""

from __future__ import annotations

import argparse
import copy
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .common import (
    BEGIN,
    END,
    ROOT,
    MarkerError,
    load_notebook,
    report,
    solution_paths,
    sync,
)

NBVAL_LINE = re.compile(r"^\s*# NBVAL_[A-Z_]+\s*$")


@dataclass
class Region:
    start: int  # line index of BEGIN
    end: int  # line index of END
    indent: str
    todo: str


def find_regions(lines: list[str], where: str) -> list[Region]:
    regions, open_at = [], None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(BEGIN):
            if open_at is not None:
                raise MarkerError(
                    f"{where}, line {i + 1}: nested {BEGIN} (the one on line "
                    f"{open_at + 1} is not closed)"
                )
            open_at = i
        elif stripped.startswith(END):
            if open_at is None:
                raise MarkerError(f"{where}, line {i + 1}: {END} without a {BEGIN}")
            begin = lines[open_at]
            todo = begin.strip()[len(BEGIN) :].lstrip(":").strip()
            regions.append(Region(open_at, i, begin[: len(begin) - len(begin.lstrip())], todo))
            open_at = None
    if open_at is not None:
        raise MarkerError(f"{where}, line {open_at + 1}: {BEGIN} is never closed by {END}")
    return regions


def strip_code(source: str, where: str, exercise: str | None) -> str:
    lines = source.split("\n")
    out, last = [], 0
    for r in find_regions(lines, where):
        out += lines[last : r.start]
        out.append(f"{r.indent}# TODO: {r.todo or 'your code here'}")
        label = f"{exercise}: " if exercise else ""
        out.append(f'{r.indent}raise NotImplementedError("{label}fill in this TODO")')
        last = r.end + 1
    out += lines[last:]
    return "\n".join(line for line in out if not NBVAL_LINE.match(line))


def strip_markdown(source: str, where: str) -> str:
    lines = source.split("\n")
    out, last = [], 0
    for r in find_regions(lines, where):
        out += lines[last : r.start] + ["_Your answer here._"]
        last = r.end + 1
    return "\n".join(out + lines[last:])


def student_notebook(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The student version of a solved notebook (a new object; ``nb`` is not changed)."""
    nb = copy.deepcopy(nb)
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index + 1}"
        course = cell.metadata.get("course", {})
        if cell.cell_type == "code":
            cell.source = strip_code(cell.source, where, course.get("exercise"))
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        elif cell.cell_type == "markdown":
            cell.source = strip_markdown(cell.source, where)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
    nb.metadata.pop("widgets", None)
    nb.metadata.setdefault("course", {})["student"] = True
    return nb


def render(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"


def generate(root: Path = ROOT, check: bool = False) -> list[str]:
    """Write (or, with ``check``, compare) notebooks/ from solutions/. Returns the problems."""
    problems, expected = [], set()
    out_dir = root / "notebooks"
    out_dir.mkdir(exist_ok=True)
    for path in solution_paths(root):
        nb = load_notebook(path)
        student = student_notebook(nb, str(path.relative_to(root)))
        nbformat.validate(student)
        text = render(student)
        target = out_dir / path.name
        expected.add(target.name)
        wrong = sync(target, text, check)
        if wrong:
            problems.append(f"{target.relative_to(root)} {wrong}")
    for extra in sorted(out_dir.glob("*.ipynb")):
        if extra.name not in expected:
            problems.append(f"{extra.relative_to(root)} has no solved notebook in solutions/")
    return problems


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="exit 1 if notebooks/ is not current")


def run(args: argparse.Namespace) -> int:
    return report("student", generate, args.check)
