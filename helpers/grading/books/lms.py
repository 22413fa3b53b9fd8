"""LMS totals: sum each student's points, by a policy for several uploads, and write them
(whose a submission is: ``reading/students.py``; a downloaded ``.zip`` itself: ``archives.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..reading.students import Student, student_of
from ..records import Row
from .gradebook import per_submission, write_table

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
        rows.append([student.name, student.id, *cols, f"{totals.total(student):g}", late])
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
