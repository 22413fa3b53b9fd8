"""``--totals`` in the file an LMS imports as it is: Canvas's gradebook CSV, Moodle's worksheet.

- **Canvas** (Grades → Import): the layout of Canvas's own gradebook export. A header row
  ``Student, ID, SIS User ID, SIS Login ID, Section`` and one column per notebook titled
  ``Title (assignment id)``, then a ``Points Possible`` row, then one row per student. Canvas's
  importer (``GradebookImporter`` in canvas-lms) refuses a header without ``Student`` and
  ``ID`` first and ``Section`` after the SIS columns ("Invalid header row"), finds a student
  by the ``ID`` column (the Canvas user id, which Canvas puts in each downloaded file's name),
  an assignment by the id in brackets (else by its exact title, else it creates a new
  assignment), and leaves a blank cell unchanged. ``--canvas-assignment NN=ID`` gives the id.
- **Moodle** (assignment → "Upload grading worksheet", feedback type "Offline grading
  worksheet"): one file per notebook, each an assignment of its own. Moodle's importer
  (``mod/assign/feedback/offline/importgradeslib.php``) finds the columns ``Identifier``,
  ``Grade`` and ``Last modified (grade)`` by their (English) titles, a student by
  ``Participant N`` (N: the id Moodle puts in each downloaded folder's name), and skips a
  row whose grade is empty, negative or above the assignment's maximum, or whose grade in
  Moodle was changed after ``Last modified (grade)`` (so that column is the time of writing).

Students whose file names give no id (not from that LMS's download) cannot be matched by
either importer: they are listed in a warning, and left out of Moodle's worksheets.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from ..reading.students import CANVAS, MOODLE
from .gradebook import write_table
from .lms import Totals

LMS_CHOICES = ("auto", "canvas", "moodle", "plain")
CANVAS_STUDENT = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = [
    "Identifier",
    "Full name",
    "Grade",
    "Maximum grade",
    "Last modified (grade)",
    "Feedback comments",
]


def recognize(labels: list[str]) -> tuple[str, str]:
    """The LMS a download came from, by its file names: (lms, why)."""
    canvas = sum(bool(re.search(CANVAS, lb)) for lb in labels)
    moodle = sum(bool(re.search(MOODLE, lb)) for lb in labels)
    if canvas and moodle:
        return "plain", f"file names of Canvas ({canvas}) and of Moodle ({moodle}): give --lms"
    if canvas:
        return "canvas", f"{canvas} of {len(labels)} file names are Canvas's"
    if moodle:
        return "moodle", f"{moodle} of {len(labels)} file names are Moodle's"
    return "plain", "no file name is Canvas's or Moodle's"


def parse_assignments(pairs: list[str] | None) -> dict[str, str]:
    """``--canvas-assignment NN=ID`` (repeated) -> {"02": "12345"} ("7b=...": "07b");
    ValueError if malformed."""
    out = {}
    for pair in pairs or []:
        m = re.fullmatch(r"\s*(\d+)([a-z]?)\s*=\s*(\d+)\s*", pair)
        if not m:
            raise ValueError(f"--canvas-assignment takes NN=ID (e.g. 02=12345), got {pair!r}")
        out[f"{int(m.group(1)):02d}{m.group(2)}"] = m.group(3)
    return out


def _number(x: float) -> str:
    return f"{round(x, 2):g}"


def _unmatched(totals: Totals) -> list[str]:
    return sorted(s.name for s in totals.students if not s.id)


def write_canvas(path: str | Path, totals: Totals, ids: dict[str, str]) -> list[str]:
    """Canvas's gradebook CSV; returns warnings."""
    titles = [
        f"Notebook {nb} ({ids[nb]})" if nb in ids else f"Notebook {nb}" for nb in totals.notebooks
    ]
    rows = [
        ["Points Possible", "", "", "", ""]
        + [_number(totals.max_points[nb]) for nb in totals.notebooks]
    ]
    for student in sorted(totals.students, key=lambda s: (s.name.lower(), s.id)):
        scores = totals.students[student]
        cells = [_number(scores[nb].points) if nb in scores else "" for nb in totals.notebooks]
        rows.append([student.name, student.id, "", "", ""] + cells)
    write_table(path, CANVAS_STUDENT + titles, rows)
    warnings = []
    no_id = [nb for nb in totals.notebooks if nb not in ids]
    if no_id:
        warnings.append(
            f"Canvas: no assignment id for notebook(s) {', '.join(no_id)}: Canvas matches the "
            "column by its exact title or creates a new assignment "
            "(give --canvas-assignment NN=ID, the number in the assignment's URL)"
        )
    if _unmatched(totals):
        warnings.append(
            "Canvas: no Canvas user id for " + ", ".join(_unmatched(totals)) + " (files not "
            "named by Canvas's download): Canvas matches them by name or not at all"
        )
    return warnings


def moodle_path(path: str | Path, notebook: str) -> Path:
    path = Path(path)
    return path.with_name(f"{path.stem}_{notebook}{path.suffix or '.csv'}")


def feedback_line(score) -> str:
    text = f"{score.raw:g} / {score.max_points:g} points"
    if score.late:
        text += f", late (-{score.penalty:g})" if score.penalty else ", late"
    return text


def write_moodle(path: str | Path, totals: Totals, now: datetime | None = None) -> list[str]:
    """One offline grading worksheet per notebook (``totals_NN.csv``); returns warnings."""
    # ISO 8601 with its offset: PHP's strtotime reads it the same in every server time zone
    stamp = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    written = []
    for nb in totals.notebooks:
        out = moodle_path(path, nb)
        rows = []
        for student in sorted(totals.students, key=lambda s: (s.name.lower(), s.id)):
            score = totals.students[student].get(nb)
            if score is None or not student.id:
                continue
            grade = min(max(score.points, 0.0), totals.max_points[nb])
            rows.append(
                [
                    f"Participant {student.id}",
                    student.name,
                    _number(grade),
                    _number(totals.max_points[nb]),
                    stamp,
                    feedback_line(score),
                ]
            )
        write_table(out, MOODLE_COLUMNS, rows)
        written.append(str(out))
    warnings = [f"Moodle: one worksheet per notebook: {', '.join(written)}"]
    if _unmatched(totals):
        warnings.append(
            "Moodle: left out (no participant id in their file names): "
            + ", ".join(_unmatched(totals))
        )
    return warnings


def write_for(lms: str, path: str | Path, totals: Totals, ids: dict[str, str]) -> list[str]:
    """Write ``totals`` for ``lms`` (canvas, moodle or plain); returns the warnings."""
    from .lms import write_totals

    if lms == "canvas":
        return write_canvas(path, totals, ids)
    if lms == "moodle":
        return write_moodle(path, totals)
    write_totals(path, totals)
    return []


def print_totals(rows, path: str | Path, options) -> None:
    """``--totals``: compute, recognize the LMS (``--lms auto``), write, say what was done."""
    import sys

    from ..reading.students import compile_pattern
    from .lms import compute_totals, totals_summary

    pattern = compile_pattern(options.student_pattern) if options.student_pattern else None
    totals = compute_totals(rows, pattern, options.policy, options.late_penalty)
    lms, why = options.lms, "--lms"
    if lms == "auto":
        lms, why = recognize(sorted({r.submission for r in rows}))
    warnings = write_for(lms, path, totals, parse_assignments(options.canvas_assignment))
    print(totals_summary(totals, path) + f"\nformat: {lms} ({why})", file=sys.stderr)
    for warning in warnings:
        print(f"warning: {warning}" if "worksheet" not in warning else warning, file=sys.stderr)
