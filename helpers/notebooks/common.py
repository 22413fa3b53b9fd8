"""What the notebook tools share: the exported cells, generated files kept in sync, the exit
status (solution markers, paths and numbers: ``helpers/notebook_files.py``)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from pathlib import Path

from ..notebook_files import (  # noqa: F401 (the tools' names for them)
    BEGIN,
    END,
    NBVAL_LINE,
    ROOT,
    load_notebook,
    notebook_number,
    solution_paths,
)

MARK = "#| export"  # nbdev's marker: the cells that become a block module


class MarkerError(ValueError):
    """A solution region is badly marked; the message names file, cell and line."""


def sync(target: Path, text: str, check: bool) -> str | None:
    """Write ``text`` to a generated file, or with ``check`` compare: None when the file is
    current (or was written), else what is wrong with it ("is missing", "is out of date")."""
    current = target.read_text(encoding="utf-8") if target.exists() else None
    if current == text:
        return None
    if check:
        return "is missing" if current is None else "is out of date"
    target.write_text(text, encoding="utf-8")
    return None


def report(command: str, make: Callable[..., list[str]], check: bool) -> int:
    """Run ``make(check=...)`` (student's ``generate`` or export's ``export``) and print its
    problems; the exit status: 0 up to date or written, 1 out of date, 2 badly marked."""
    problems = make(check=check)  # MarkerError, ValueError: `error: ...`, exit 2 (__main__)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"run `python -m helpers {command}` to regenerate", file=sys.stderr)
        return 1
    print("up to date" if check else "done")
    return 0


def exported_code(nb) -> str:
    """The ``#| export`` cells of a notebook, markers and solution markers dropped, joined."""
    chunks = []
    for cell in nb.cells:
        lines = cell.source.split("\n")
        if cell.cell_type != "code" or not lines or lines[0].strip() != MARK:
            continue
        body = [line for line in lines[1:] if not line.strip().startswith((BEGIN, END))]
        chunks.append("\n".join(body).strip("\n"))
    return "\n\n\n".join(chunks)


def public_names(code: str) -> list[str]:
    """The functions and classes ``code`` defines at top level, private ones left out."""
    return [
        n.name
        for n in ast.parse(code).body
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")
    ]
