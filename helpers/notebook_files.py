"""The course's notebook files, as the notebook tools and the grader both read them: the
solution markers, ``# NBVAL_`` lines, notebook numbers, the solved notebooks, reading one.

Neither ``helpers/notebooks/`` (the maintainer's tools) nor ``helpers/grading/`` owns these:
both import them from here (CONTRIBUTING.md, "Import rules").
"""

from __future__ import annotations

import re
from pathlib import Path

# nbgrader's markers around the answer in a solved notebook
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
NBVAL_LINE = re.compile(r"^\s*# NBVAL_[A-Z_]+\s*$")  # dropped from student notebooks
ROOT = Path(__file__).resolve().parent.parent
# "09" in "09_vision_transformer.ipynb" (also "09-vit.ipynb", "09.ipynb": submissions' names);
# a notebook put between two others has a letter, "07b" (07, 07b, 08: the ids before it stay)
NUMBER = re.compile(r"^(\d{2}[a-z]?)(?:[_\-. ]|$)")


def notebook_number(path: str | Path) -> str | None:
    """``"09"`` for ``solutions/09_vit.ipynb``, ``"07b"`` for ``07b_language_model.ipynb``; None
    for a name without a number."""
    m = NUMBER.match(Path(str(path)).name)
    return m.group(1) if m else None


def solution_paths(root: Path = ROOT) -> list[Path]:
    """The solved notebooks, ``solutions/NN_*.ipynb`` and ``NNx_*.ipynb``: 07, 07b, 08."""
    return sorted(
        (p for p in (root / "solutions").glob("*_*.ipynb") if _numbered(p)),
        key=lambda p: (notebook_number(p), p.name),
    )


def _numbered(path: Path) -> bool:
    """``NN_name.ipynb`` or ``NNx_name.ipynb``: the number, then ``_``."""
    number = notebook_number(path)
    return number is not None and path.name[len(number)] == "_"


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
