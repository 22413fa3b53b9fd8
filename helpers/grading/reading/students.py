"""Who a submission belongs to, read from its label (its path inside the zip or folder), with
the first of these patterns that matches, a Moodle folder before all (``--student-pattern
REGEX`` replaces them; it must have a named group ``student``, and may have ``id`` and
``late``):

- Canvas ("Download submissions"): ``lastnamefirstname_12345_67890_02_name.ipynb`` and, for a
  late submission, ``lastnamefirstname_LATE_12345_67890_02_name.ipynb`` (name, Canvas user id,
  submission id, then the file name the student uploaded);
- Moodle (assignment "Download all submissions"): a folder per student
  ``First Last_123456_assignsubmission_file_/02_name.ipynb`` or, without folders,
  ``First Last_123456_assignsubmission_file_02_name.ipynb`` (123456: Moodle's participant id);
- a folder per student: ``alice/02_name.ipynb`` (also nbgrader's ``submitted/alice/...``);
- otherwise each file is its own student, named by its file name.

Canvas renames the files, so the notebook number comes from the notebook's own metadata
(``metadata.course.notebook``, set in every student notebook of the series).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

CANVAS = r"^(?:.*/)?(?P<student>[^/_]+)(?P<late>_LATE)?_(?P<id>\d+)_\d+_[^/]+$"
MOODLE = r"(?:^|/)(?P<student>[^/]+?)_(?P<id>\d+)_assignsubmission_[a-z]+_"
FOLDER = r"^(?P<student>[^/]+)/"
# a Moodle folder, which Moodle names: what a student named a file inside it (a Canvas name of a
# classmate's, say) never takes the file from that folder's student (attack round 5)
MOODLE_FOLDER = r"^(?P<student>[^/]+?)_(?P<id>\d+)_assignsubmission_[a-z]+_[^/]*/"
PATTERNS = (MOODLE_FOLDER, CANVAS, MOODLE, FOLDER)


def compile_pattern(text: str) -> re.Pattern:
    """A ``--student-pattern``: ValueError unless it compiles and has a group ``student``."""
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise ValueError(f"--student-pattern is not a valid regular expression: {exc}") from None
    if "student" not in pattern.groupindex:
        raise ValueError("--student-pattern needs a named group (?P<student>...)")
    return pattern


@dataclass(frozen=True)
class Student:
    name: str
    id: str = ""
    late: bool = False


def _named(label: str, patterns: list[re.Pattern]) -> Student | None:
    for p in patterns:
        m = p.search(label)
        if m and m.group("student"):
            groups = m.groupdict()
            return Student(
                m.group("student").strip(),
                (groups.get("id") or "").strip(),
                bool(groups.get("late")),
            )
    return None


def student_of(label: str, pattern: re.Pattern | None = None) -> Student:
    """Who submitted ``label`` (see the module docstring for the patterns tried)."""
    patterns = [pattern] if pattern is not None else [re.compile(p) for p in PATTERNS]
    named = _named(label, patterns)
    return named or Student(PurePosixPath(label).name.removesuffix(".ipynb"))


def owner_of_file(name: str, pattern: re.Pattern | None = None) -> tuple[str, str] | None:
    """(student, id) that a file's own name gives, in a folder where an LMS put every student's
    files side by side (Canvas, Moodle without folders, or ``pattern``, searched in the name
    alone: a pattern for a folder per student names no one here, and that folder is the
    student's own); None: it names no one."""
    patterns = [pattern] if pattern is not None else [re.compile(CANVAS), re.compile(MOODLE)]
    named = _named(name, patterns)
    return (named.name, named.id) if named else None


# --------------------------------------------------------------------------- totals out
