"""LMS names and totals: tell students apart in a download, sum their points, write totals
(a downloaded ``.zip`` itself: ``archives.py``).

Who a submission belongs to is read from its label (its path inside the zip or folder), with
the first of these patterns that matches (``--student-pattern REGEX`` replaces them; it must
have a named group ``student``, and may have ``id`` and ``late``):

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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .gradebook import guard, per_submission, write_table
from .records import Row

CANVAS = r"^(?:.*/)?(?P<student>[^/_]+)(?P<late>_LATE)?_(?P<id>\d+)_\d+_[^/]+$"
MOODLE = r"(?:^|/)(?P<student>[^/]+?)_(?P<id>\d+)_assignsubmission_[a-z]+_"
FOLDER = r"^(?P<student>[^/]+)/"
PATTERNS = (CANVAS, MOODLE, FOLDER)


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

POLICIES = ("latest", "best", "ontime")
CANVAS_ATTACHMENT = re.compile(r"_(\d+)_(\d+)_[^/]+$")  # user id, then Canvas's file id


def upload_order(label: str) -> tuple[int, str]:
    """When a submission was made, relative to the student's others: Canvas numbers its files
    in upload order (``name_userid_fileid_...``); otherwise the label's order."""
    m = CANVAS_ATTACHMENT.search(label)
    return (int(m.group(2)) if m else -1, label)


@dataclass
class Score:
    """The submission that counts for one student and notebook."""

    points: float  # after the late penalty
    raw: float  # as graded
    max_points: float
    late: bool
    label: str
    submissions: int = 1  # of this notebook by this student

    @property
    def penalty(self) -> float:
        return self.raw - self.points


@dataclass
class Totals:
    notebooks: list[str]  # the notebook columns, sorted
    max_points: dict[str, float]  # notebook -> points possible
    students: dict[Student, dict[str, Score]] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)  # "student: notebook NN twice"
    unattributed: list[str] = field(default_factory=list)  # labels of unknown notebooks
    policy: str = "latest"
    late_penalty: float = 0.0  # percent of the notebook's points, per late notebook

    def total(self, student: Student) -> float:
        return sum(s.points for s in self.students[student].values())

    def late(self, student: Student) -> list[str]:
        return [nb for nb, s in sorted(self.students[student].items()) if s.late]


def _choose(candidates: list[Score], policy: str) -> Score:
    """The submission that counts: the latest, the best, or the best made on time."""
    latest = max(candidates, key=lambda s: upload_order(s.label))
    if policy == "latest":
        return latest
    pool = [s for s in candidates if not s.late] if policy == "ontime" else candidates
    if not pool:  # nothing on time: the latest late one counts
        return latest
    return max(pool, key=lambda s: (s.points, upload_order(s.label)))


def compute_totals(
    rows: list[Row],
    pattern: re.Pattern | None = None,
    policy: str = "latest",
    late_penalty: float = 0.0,
) -> Totals:
    """Per student and notebook, the submission that ``policy`` picks when there are several
    (``latest``: as LMSs count; ``best``; ``ontime``: the best on time), a late one losing
    ``late_penalty`` percent of the notebook's points."""
    if policy not in POLICIES:
        raise ValueError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    per_sub = per_submission(rows)
    notebooks = sorted({nb for nb, _, _ in per_sub.values() if nb})
    totals = Totals(notebooks, dict.fromkeys(notebooks, 0.0), policy=policy)
    totals.late_penalty = late_penalty
    candidates: dict[Student, dict[str, list[Score]]] = {}
    for label, (nb, points, max_points) in sorted(per_sub.items()):
        student = student_of(label, pattern)
        key = Student(student.name, student.id)
        mine = candidates.setdefault(key, {})
        if not nb:
            totals.unattributed.append(label)
            continue
        totals.max_points[nb] = max(totals.max_points[nb], max_points)
        mine.setdefault(nb, []).append(Score(points, points, max_points, student.late, label))
    for key, per_nb in candidates.items():
        scores = totals.students.setdefault(key, {})
        for nb, subs in per_nb.items():
            for s in subs:
                if s.late and late_penalty:
                    cut = totals.max_points[nb] * late_penalty / 100
                    s.points = max(0.0, s.raw - cut)
            scores[nb] = _choose(subs, policy)
            scores[nb].submissions = len(subs)
            if len(subs) > 1:
                totals.duplicates.append(
                    f"{key.name}: notebook {nb} submitted {len(subs)} times "
                    f"(--policy {policy}: {scores[nb].label} counts)"
                )
    return totals


def write_totals(path: str | Path, totals: Totals) -> None:
    """One row per student: name, id, a column per notebook, the total, the late notebooks."""
    head = ["student", "id", *totals.notebooks, "total", "late"]
    rows = []
    for student in sorted(totals.students, key=lambda s: (s.name.lower(), s.id)):
        scores = totals.students[student]
        cols = [f"{scores[nb].points:g}" if nb in scores else "0" for nb in totals.notebooks]
        late = " ".join(totals.late(student))
        rows.append([guard(student.name), student.id, *cols, f"{totals.total(student):g}", late])
    write_table(path, head, rows)


def totals_summary(totals: Totals, path: str | Path) -> str:
    possible = ", ".join(f"{nb}: {totals.max_points[nb]:g}" for nb in totals.notebooks)
    lines = [f"totals for {len(totals.students)} students -> {path} (points possible: {possible})"]
    late = sum(len(totals.late(s)) for s in totals.students)
    if late:
        cut = f", {totals.late_penalty:g} % of the points off each" if totals.late_penalty else ""
        lines.append(f"{late} late notebooks count{cut}")
    lines += [f"warning: {d}" for d in totals.duplicates]
    if totals.unattributed:
        lines.append(
            f"warning: {len(totals.unattributed)} submissions of no known notebook are "
            f"in no column: {', '.join(totals.unattributed[:5])}"
        )
    return "\n".join(lines)
