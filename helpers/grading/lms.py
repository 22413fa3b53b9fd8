"""LMS in and out: grade a downloaded ``.zip`` directly, tell students apart, write totals.

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

import contextlib
import csv
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .records import Row

CANVAS = r"^(?:.*/)?(?P<student>[^/_]+)(?P<late>_LATE)?_(?P<id>\d+)_\d+_[^/]+$"
MOODLE = r"(?:^|/)(?P<student>[^/]+?)_(?P<id>\d+)_assignsubmission_[a-z]+_"
FOLDER = r"^(?P<student>[^/]+)/"
PATTERNS = (CANVAS, MOODLE, FOLDER)
MAX_ZIP_BYTES = 8 * 2**30  # uncompressed, all members together
MAX_ZIP_MEMBERS = 200_000


class ArchiveError(ValueError):
    """A zip that cannot be extracted safely; the message names it."""


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


# --------------------------------------------------------------------------- zips in


def _safe_members(archive: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    members, total = [], 0
    for info in archive.infolist():
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if info.is_dir() or "__MACOSX" in path.parts or path.name.startswith("._"):
            continue
        if (
            path.is_absolute()
            or ".." in path.parts
            or (info.external_attr >> 16) & 0o170000 == 0o120000
        ):
            raise ArchiveError(f"{name}: unsafe member {info.filename!r} (absolute, .. or a link)")
        total += info.file_size
        members.append(info)
    if len(members) > MAX_ZIP_MEMBERS or total > MAX_ZIP_BYTES:
        raise ArchiveError(
            f"{name}: too large to extract ({len(members)} files, "
            f"{total / 2**30:.1f} GiB uncompressed)"
        )
    return members


def extract_zip(path: Path, dest: Path) -> Path:
    """Extract ``path`` into a new folder under ``dest``; labels are then paths inside the zip."""
    folder = dest / path.stem
    n = 1
    while folder.exists():  # two zips with the same name
        n += 1
        folder = dest / f"{path.stem}-{n}"
    folder.mkdir(parents=True)
    try:
        with zipfile.ZipFile(path) as archive:
            for info in _safe_members(archive, str(path)):
                target = folder / PurePosixPath(info.filename.replace("\\", "/"))
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"{path}: not a zip file ({exc})") from None
    return folder


@contextlib.contextmanager
def expanded(paths: list[str]) -> Iterator[list[str]]:
    """The paths, with each ``.zip`` replaced by a temporary folder holding its contents."""
    zips = [p for p in paths if p.lower().endswith(".zip") and Path(p).is_file()]
    if not zips:
        yield list(paths)
        return
    tmp = Path(tempfile.mkdtemp(prefix="grade-zips-"))
    try:
        out = [str(extract_zip(Path(p), tmp)) if p in zips else p for p in paths]
        yield out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
    per_sub: dict[str, dict] = {}
    for r in rows:
        entry = per_sub.setdefault(
            r.submission, {"notebook": r.notebook, "points": 0.0, "max": 0.0}
        )
        entry["points"] += r.points
        entry["max"] += r.max_points
    notebooks = sorted({e["notebook"] for e in per_sub.values() if e["notebook"]})
    totals = Totals(notebooks, dict.fromkeys(notebooks, 0.0), policy=policy)
    totals.late_penalty = late_penalty
    candidates: dict[Student, dict[str, list[Score]]] = {}
    for label, e in sorted(per_sub.items()):
        student = student_of(label, pattern)
        key = Student(student.name, student.id)
        mine = candidates.setdefault(key, {})
        nb = e["notebook"]
        if not nb:
            totals.unattributed.append(label)
            continue
        totals.max_points[nb] = max(totals.max_points[nb], e["max"])
        mine.setdefault(nb, []).append(
            Score(e["points"], e["points"], e["max"], student.late, label)
        )
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
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(head)
        for student in sorted(totals.students, key=lambda s: (s.name.lower(), s.id)):
            scores = totals.students[student]
            cols = [f"{scores[nb].points:g}" if nb in scores else "0" for nb in totals.notebooks]
            late = " ".join(totals.late(student))
            w.writerow([_safe(student.name), student.id, *cols, f"{totals.total(student):g}", late])


def _safe(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


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
