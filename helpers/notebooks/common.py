"""What the notebook tools share: solution markers, paths, reading and numbering notebooks."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

# nbgrader's markers around the answer in a solved notebook
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
ROOT = Path(__file__).resolve().parent.parent.parent
# "09" in "09_vision_transformer.ipynb" (also "09-vit.ipynb", "09.ipynb": submissions' names)
NUMBER = re.compile(r"^(\d{2})(?:[_\-. ]|$)")


class MarkerError(ValueError):
    """A solution region is badly marked; the message names file, cell and line."""


def notebook_number(path: str | Path) -> str | None:
    """``"09"`` for ``solutions/09_vit.ipynb``; None for a name without a number."""
    m = NUMBER.match(Path(str(path)).name)
    return m.group(1) if m else None


def solution_paths(root: Path = ROOT) -> list[Path]:
    """The solved notebooks, ``solutions/NN_*.ipynb``, in order."""
    return sorted(
        p for p in (root / "solutions").glob("*_*.ipynb") if notebook_number(p) and p.name[2] == "_"
    )


def load_notebook(path: Path):
    """Read and validate (an ``nbformat.NotebookNode``); a malformed file raises ValueError
    naming it."""
    import nbformat  # here: the grader imports this module for notebook_number alone

    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ValueError(f"{path}: not a valid notebook ({type(exc).__name__}: {first})") from None
    return nb


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
    try:
        problems = make(check=check)
    except (MarkerError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"run `python -m helpers {command}` to regenerate", file=sys.stderr)
        return 1
    print("up to date" if check else "done")
    return 0
