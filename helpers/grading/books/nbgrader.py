"""An nbgrader course from the solved notebooks: ``python -m helpers nbgrader COURSE_DIR [NN ...]``.

Writes ``COURSE_DIR/source/NN_name/NN_name.ipynb`` for each solved notebook, with nbgrader's
cell metadata, and ``COURSE_DIR/nbgrader_config.py`` (kept when it exists):

- a cell with a ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's own markers)
  is a solution cell: ``nbgrader generate_assignment`` replaces the region by its stub;
- every other markdown cell (the instructions) is locked read-only;
- after each exercise's check cell comes one locked, autograded test cell worth the exercise's
  points: it runs ``check(id, obj, seed=<fresh random>)`` and asserts ``.passed``, so the
  points go only to code that passes on inputs nobody saw before.

nbgrader runs the learner's code and the test in one kernel, so a learner who patches
``check`` in an earlier cell can fool this test; ``python -m helpers grade submitted/`` grades
the same files with the hardened grader (inputs judged outside the learner's kernel).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from ...notebook_files import (
    BEGIN,
    NBVAL_LINE,
    ROOT,
    load_notebook,
    notebook_number,
    solution_paths,
)

SCHEMA = 3
COURSE_ID = "attention-to-vit"
CONFIG = f'''\
# nbgrader configuration written by `python -m helpers nbgrader` (edit freely: it is kept).
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "{COURSE_ID}"
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
# notebooks that train a model (06, 09) take longer than nbgrader's default 30 s for a cell
c.Execute.timeout = 600
'''


def _meta(
    grade_id: str,
    *,
    solution: bool = False,
    grade: bool = False,
    locked: bool = False,
    points: float | None = None,
) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": SCHEMA,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return meta


def grade_id(text: str) -> str:
    """nbgrader's ids are ``[A-Za-z0-9_-]+``: ``02.causal_mask`` -> ``02-causal_mask``."""
    return re.sub(r"[^A-Za-z0-9_\-]", "-", text)


def test_source(exercise_id: str, target: str, points: float) -> str:
    return (
        f"# Autograded test: {exercise_id} ({points:g} points). It checks `{target}` on fresh\n"
        "# random inputs, so passing the check above with its fixed seed is not enough.\n"
        "import secrets as _secrets\n\n"
        "from helpers import check as _check\n\n"
        f"_result = _check({exercise_id!r}, {target}, seed=_secrets.randbelow(2**31))\n"
        f"assert _result.passed, {exercise_id + ': not passed on fresh inputs (see above)'!r}"
    )


def _test_position(cells: list, exercise_id: str, target: str) -> int:
    """Index of the cell after which the test goes: the check cell, else the exercise cell."""
    call = re.compile(
        rf"""\bcheck\(\s*["']{re.escape(exercise_id)}["']\s*,\s*{re.escape(target)}\b"""
    )
    for i, cell in enumerate(cells):
        if cell.cell_type == "code" and call.search(cell.source):
            return i
    for i, cell in enumerate(cells):
        if cell.metadata.get("course", {}).get("exercise") == exercise_id:
            return i
    return len(cells) - 1


def nbgrader_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The nbgrader source version of a solved notebook (a new object)."""
    from ..reading.submissions import exercises_of, target_name

    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("nbgrader", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.source = "\n".join(
                ln for ln in cell.source.split("\n") if not NBVAL_LINE.match(ln)
            )
        exercise = cell.metadata.get("course", {}).get("exercise")
        if any(ln.strip().startswith(BEGIN) for ln in cell.source.split("\n")):
            cell.metadata["nbgrader"] = _meta(grade_id(exercise or f"cell-{i}"), solution=True)
        elif cell.cell_type == "markdown":
            cell.metadata["nbgrader"] = _meta(f"md-{i}", locked=True)
    number = str(nb.metadata.get("course", {}).get("notebook", ""))
    tests = [(_test_position(nb.cells, ex.id, target_name(ex)), ex) for ex in exercises_of(number)]
    for after, ex in sorted(tests, key=lambda t: t[0], reverse=True):  # from the end: indices hold
        test = new_code_cell(test_source(ex.id, target_name(ex), ex.points))
        test.metadata["nbgrader"] = _meta(
            f"test-{grade_id(ex.id)}", grade=True, locked=True, points=float(ex.points)
        )
        nb.cells.insert(after + 1, test)
    nb.metadata.get("course", {}).pop("student", None)
    nb.metadata.pop("widgets", None)
    return nb


def write_course(
    course: str | Path, numbers: list[str] | None = None, root: Path = ROOT
) -> list[Path]:
    """Write the course's ``source/`` (all notebooks with exercises, or those ``numbers``)."""
    from ...checks import EXERCISES

    course = Path(course)
    graded = {ex.notebook for ex in EXERCISES.values()}
    # "2", "02" and 2 all name notebook 02; "7b" names 07b
    wanted = {re.sub(r"^(\d)(?!\d)", r"0\1", str(n)) for n in numbers or ()} or graded
    unknown = wanted - {notebook_number(p) for p in solution_paths(root)}
    if unknown:
        raise ValueError(f"no solved notebook numbered {', '.join(sorted(unknown))}")
    written = []
    for path in solution_paths(root):
        if notebook_number(path) not in wanted or notebook_number(path) not in graded:
            continue
        folder = course / "source" / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        nb = nbgrader_notebook(load_notebook(path))
        nbformat.validate(nb)
        target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
        written.append(target)
    config = course / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG, encoding="utf-8")
    return written


def add_arguments(p) -> None:
    """``python -m helpers nbgrader COURSE [NN ...]``."""
    p.add_argument("course", type=Path, help="the course folder (created if needed)")
    p.add_argument("numbers", nargs="*", metavar="NN", help="notebooks (default: all graded ones)")


def run(args) -> int:
    for path in write_course(args.course, args.numbers):
        print(path)
    print(
        f"nbgrader course in {args.course}: cd {args.course} && "
        "nbgrader generate_assignment NN_name"
    )
    return 0
