"""Make submissions from the solved notebooks: correct, partly wrong, hostile and broken."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


def load(name: str, folder: Path = SOLUTIONS):
    path = min(folder.glob(f"{name}*.ipynb"))  # "07" is 07_..., before 07b_... ("_" < "b")
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def exercise_index(nb, exercise_id: str) -> int:
    for i, cell in enumerate(nb.cells):
        if cell.get("metadata", {}).get("course", {}).get("exercise") == exercise_id:
            return i
    raise KeyError(exercise_id)


def set_exercise(nb, exercise_id: str, source: str):
    nb.cells[exercise_index(nb, exercise_id)].source = source
    return nb


def insert(nb, index: int, source: str) -> int:
    """Insert a code cell at ``index``; return its 1-based number (as the grader reports it)."""
    nb.cells.insert(index, new_code_cell(source))
    return index + 1


def after_check(nb, exercise_id: str) -> int:
    """The index right after the exercise's check cell."""
    return exercise_index(nb, exercise_id) + 2


def delete_exercise(nb, exercise_id: str):
    del nb.cells[exercise_index(nb, exercise_id)]
    return nb


def plain_notebook(*sources: str, notebook: str | None = None):
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    if notebook is not None:
        nb.metadata["course"] = {"notebook": notebook}
    return nb


def write(nb, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path
