"""Finding submissions, reading them (in a child process under limits: ``read_limited``), and
where their exercises are (no kernel needed)."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

from ...checks import REGISTRY
from ...checks.framework import Exercise
from ...notebook_files import notebook_number
from ..limits import MAX_SIBLING_BYTES, READ_MEMORY, READ_SECONDS
from ..records import Row, Submission, UsageError
from .cells import TooLarge, read_cells
from .isolate import IsolatedError, call_limited


def exercises_of(notebook: str | None) -> list[Exercise]:
    """The notebook's exercises in the order their check module defines them."""
    return [ex for ex in REGISTRY.values() if ex.notebook == notebook]


def target_name(ex: Exercise) -> str:
    return getattr(ex, "grade_target", None) or ex.id.split(".", 1)[1]


def find_submissions(paths: list[str | Path]) -> list[Submission]:
    """Files as given, and the ``*.ipynb`` under each folder (checkpoints skipped), each once,
    labelled by its path relative to the folder (a file given: its name; labels.py); in a folder
    extracted from a zip, also each notebook or uploaded zip that could not be extracted, with
    the reason as its problem (archives.py)."""
    from .archives import unread_under
    from .labels import labels

    found: list[tuple[Path, str, int, str | None]] = []  # file, relative path, place, problem
    seen: set[Path] = set()
    for place, arg in enumerate(paths):
        p = Path(arg)
        if p.is_dir():
            nbs = sorted(
                q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts and q.is_file()
            )
            unread = unread_under(p)
            if not nbs and not unread:
                raise UsageError(f"no .ipynb files under {arg}")
            found += [(p, rel, place, why) for rel, why in unread]  # p: no file to read
            mine = [(q, q.relative_to(p).as_posix()) for q in nbs]
        elif p.is_file():
            mine = [(p, p.name)]
        else:
            raise UsageError(f"no such file or folder: {arg}")
        for path, rel in mine:
            if path.resolve() not in seen:
                seen.add(path.resolve())
                found.append((path, rel, place, None))
    names = labels([(rel, place) for _, rel, place, _ in found])
    return [
        Submission(path, label, notebook_number(rel) if why else None, why)
        for (path, rel, _, why), label in zip(found, names)
    ]


def read_notebook(sub: Submission):
    """Parse the file and set ``sub.notebook`` / ``sub.problem``; return the notebook or None."""
    import nbformat

    sub.notebook = notebook_number(sub.path)
    if sub.path.is_symlink():  # a link in a download points at somebody else's file
        sub.problem = "the file is a link, not a notebook: links are not followed."
        return None
    try:
        data = read_cells(sub.path)
    except TooLarge as exc:
        sub.problem = str(exc)
        return None
    except (OSError, UnicodeDecodeError) as exc:
        sub.problem = f"cannot read the file: {type(exc).__name__}: {exc}"
        return None
    except (ValueError, RecursionError) as exc:
        sub.problem = f"not a notebook: the file is not valid JSON ({exc})."
        return None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        sub.problem = "not a notebook: the JSON has no list of cells."
        return None
    try:
        with warnings.catch_warnings():  # missing cell ids and the like: not the grader's business
            warnings.simplefilter("ignore")
            nb = nbformat.reads(json.dumps(data), as_version=4)
        cells = [c for c in nb.cells if c.get("cell_type") == "code"]
        for c in cells:
            if not isinstance(c.get("source"), str):
                raise ValueError("a code cell without source text")
    except Exception as exc:
        sub.problem = f"not a readable notebook: {type(exc).__name__}: {exc}"
        return None
    course = nb.metadata.get("course") if isinstance(nb.metadata, dict) else None
    number = metadata_number(course.get("notebook") if isinstance(course, dict) else None)
    if number is not None:
        if sub.notebook and sub.notebook != number:
            sub.notes.append(
                f"the file name says notebook {sub.notebook}, its metadata says "
                f"{number}: graded as notebook {number}."
            )
        sub.notebook = number
    return nb


def metadata_number(meta: Any) -> str | None:
    """``metadata.course.notebook`` as "NN": an int 0-99 or one or two ASCII digits, with a
    lower-case letter after them for a notebook between two others ("07b"), else None
    (``"²"`` is a digit to ``str.isdigit``, not to ``int``)."""
    if type(meta) is int and 0 <= meta <= 99:
        return f"{meta:02d}"
    found = re.fullmatch(r"([0-9]{1,2})([a-z]?)", meta) if type(meta) is str else None
    if found:
        return f"{int(found.group(1)):02d}{found.group(2)}"
    return None


def check_gradable(sub: Submission) -> None:
    if sub.problem is None and sub.notebook is None:
        sub.problem = (
            "cannot tell which notebook of the series this is: no metadata.course.notebook "
            "and the file name does not start with NN_."
        )
    elif sub.problem is None and not exercises_of(sub.notebook):
        sub.problem = (
            f"notebook {sub.notebook} has no graded exercises (not a notebook of this series?)."
        )


def problem_rows(sub: Submission, status: str, message: str) -> list[Row]:
    exs = exercises_of(sub.notebook)
    if not exs:
        return [Row(sub.label, sub.notebook or "", "", 0.0, 0.0, status, message)]
    return [
        Row(sub.label, sub.notebook or "", ex.id, 0.0, ex.points, status, message) for ex in exs
    ]


def code_cells(nb) -> list[tuple[int, Any]]:
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]


def exercise_cell(cells, ex: Exercise) -> int | None:
    """Position in ``cells`` of the exercise's cell: by metadata, else by its def/class line."""
    for pos, (_, cell) in enumerate(cells):
        course = cell.metadata.get("course")
        if isinstance(course, dict) and course.get("exercise") == ex.id:
            return pos
    pattern = re.compile(rf"^\s*(def|class)\s+{re.escape(target_name(ex))}\b", re.MULTILINE)
    for pos, (_, cell) in enumerate(cells):
        if pattern.search(cell.source):
            return pos
    return None


#: the data files a notebook of the course reads from its own folder, which the grader copies
#: beside it (none: the series' data is synthetic or ships with scikit-learn). Nothing else of
#: the folder reaches a kernel: not a classmate's file where an LMS put everyone's side by side,
#: not the instructor's gradebook or its resume file when --out lies in the graded folder.
COURSE_FILES: tuple[str, ...] = ()


def copy_siblings(
    notebook: Path,
    dest: Path,
    student_pattern: str | None = None,
    declared: tuple[str, ...] = COURSE_FILES,
) -> None:
    """The ``declared`` files beside the notebook (data a notebook reads), within a size budget;
    where the LMS prefixes each student's files (students.owner_of_file), the notebook owner's copy
    of a declared name (``alice_11_22_data.csv`` for ``data.csv``), never a classmate's."""
    from .students import compile_pattern, owner_of_file

    pattern = compile_pattern(student_pattern) if student_pattern else None
    owner = owner_of_file(notebook.name, pattern)
    budget = MAX_SIBLING_BYTES
    try:
        entries = sorted(notebook.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.suffix == ".ipynb" or entry.is_symlink() or not entry.is_file():
            continue
        if owner is not None and owner_of_file(entry.name, pattern) not in (None, owner):
            continue
        prefixed = owner is not None  # an LMS's folder: its own copy may carry its prefix
        name = next(
            (d for d in declared if entry.name == d or prefixed and entry.name.endswith("_" + d)),
            None,
        )
        if name is None or (dest / name).exists():
            continue
        size = entry.stat().st_size
        if size > budget:
            continue
        budget -= size
        shutil.copyfile(entry, dest / name)


def read_limited(sub: Submission) -> None:
    """Set ``sub.notebook``, ``problem`` and ``notes`` from its file, read in a child process
    under limits: no file's content can raise, grow or stall in the batch's own process."""
    if sub.problem:  # known before reading (archives.py): nothing to read
        return

    def read() -> list:
        read_notebook(sub)
        check_gradable(sub)
        return [sub.notebook, sub.problem, list(sub.notes)]

    try:
        notebook, problem, notes = call_limited(
            read, memory_bytes=READ_MEMORY, seconds=READ_SECONDS
        )
        sub.notebook, sub.problem = notebook, problem
        sub.notes = [str(n) for n in notes]
    except IsolatedError as exc:
        sub.problem = f"cannot read the notebook: {exc}."
    if sub.notebook is not None and not exercises_of(sub.notebook):
        sub.problem = sub.problem or f"notebook {sub.notebook} has no graded exercises."
