"""``--totals`` for Canvas and Moodle, checked against the rules of each LMS's own importer.

The rules are written down here from the importers' source, not from our writer:

- Canvas: ``GradebookImporter`` (canvas-lms, app/models/gradebook_importer.rb) and
  ``Assignment.title_and_id``; the download's file names from ``ContentZipper#get_filename``
  (``name[_LATE]_userid``, then ``_fileid_`` and the uploaded name).
- Moodle: ``assignfeedback_offline_grade_importer`` (moodle,
  mod/assign/feedback/offline/importgradeslib.php), ``process_import_grades`` (locallib.php),
  the worksheet's columns from ``assign_grading_table`` (mod/assign/gradingtable.php,
  ``col_recordid``) and the English strings (``recordid`` = Identifier, ``grade`` = Grade,
  ``lastmodifiedgrade`` = Last modified (grade), ``hiddenuser`` = "Participant "); the
  download's folder names from ``assign::download_submissions`` (``fullname_uniqueid``).
"""

from __future__ import annotations

import csv
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.grading.books.gradebook import read_rows, read_table, write_table
from helpers.grading.books.lms import compute_totals
from helpers.grading.books.lms_export import moodle_path, parse_assignments, recognize, write_for

from .classbook import COLUMNS

# ----------------------------------------------------------------- Canvas's importer, as rules

CANVAS_NON_ASSIGNMENT = re.compile(  # NON_ASSIGNMENT_COLUMN_HEADERS, matched anywhere
    "Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
    "Override Score|Override Grade|Override Status"
)


def canvas_import(path: Path, assignment_ids: set[str], user_ids: set[str]) -> dict:
    """What Canvas's gradebook import makes of ``path``: {(user id, assignment id): grade}.
    Raises AssertionError where Canvas would refuse the file or create something new."""
    lines = path.read_text(encoding="utf-8").splitlines()
    # identify_delimiter: the comma wins when every one of the first lines splits alike
    first = [len(next(csv.reader([ln]))) for ln in lines[:3]]
    assert len(set(first)) == 1, "Canvas would guess another delimiter"
    rows = list(csv.reader(lines))
    header = rows[0]
    # row_has_student_headers?: more than 3 columns, "Student" then "ID"
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], "Invalid header row"
    # update_column_count: SIS User ID then SIS Login ID -> 5 student columns, the last "Section"
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4], "Invalid header row"
    columns = {}
    for i, title in enumerate(header[5:], 5):
        if CANVAS_NON_ASSIGNMENT.search(title):
            continue  # a read-only column Canvas ignores
        m = re.fullmatch(r"(.*)\s\((\d+)\)", title)  # Assignment.title_and_id
        assert m and m.group(2) in assignment_ids, f"{title!r} would be a new assignment"
        columns[i] = m.group(2)
    grades = {}
    for row in rows[1:]:
        if "Points Possible" in row[0]:  # check_for_non_student_row
            assert all(re.fullmatch(r"\d+(\.\d+)?", row[i]) for i in columns)
            continue
        assert row[1] in user_ids, f"{row[0]!r} would be a new student (ID {row[1]!r})"
        for i, assignment in columns.items():
            cell = row[i].strip()
            if cell in ("", "-"):  # no_score?: nothing changes
                continue
            assert re.fullmatch(r"-?[0-9.]+", cell), cell
            grades[(row[1], assignment)] = float(cell)
    return grades


# ----------------------------------------------------------------- Moodle's importer, as rules


def moodle_import(path: Path, participants: set[str], max_grade: float, graded_at: datetime):
    """What Moodle's worksheet upload makes of ``path``: {participant id: grade}."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    # init(): the columns are found by their exact titles; without all three, no import
    index = {name: header.index(name) for name in ("Identifier", "Grade", "Last modified (grade)")}
    grades = {}
    for row in rows[1:]:
        ident = row[index["Identifier"]]
        # next(): the id is what follows get_string('hiddenuser') = "Participant "
        assert ident.startswith("Participant "), ident
        uid = ident[len("Participant ") :]
        assert uid in participants, f"{ident} matches no participant"
        grade = row[index["Grade"]]
        # strtotime(): an ISO 8601 time with its offset reads the same in any server zone
        modified = datetime.fromisoformat(row[index["Last modified (grade)"]])
        assert modified.tzinfo is not None
        # process_import_grades(): skipped if empty, < 0, > the maximum, or older (+60 s)
        # than the grade already in Moodle
        assert grade != "" and 0 <= float(grade) <= max_grade, grade
        assert modified.timestamp() + 60 >= graded_at.timestamp()
        grades[uid] = float(grade)
    return grades


# ----------------------------------------------------------------- the class

CANVAS_FILES = {  # label -> (notebook, points of 02's 3 exercises), Canvas's download names
    "smithjohn_12345_700_02_attention.ipynb": ("02", (1, 1, 1)),
    "smithjohn_12345_800_02_attention-1.ipynb": ("02", (1, 0, 0)),  # resubmitted, worse
    "doejane_LATE_23456_900_02_attention.ipynb": ("02", (1, 1, 0)),
    "doejane_23456_901_00_welcome.ipynb": ("00", (1,)),
}
MOODLE_FILES = {
    "Ann Lee_345678_assignsubmission_file_/02_attention.ipynb": ("02", (1, 1, 1)),
    "Bo Chen_345679_assignsubmission_file_/02_attention.ipynb": ("02", (0, 1, 0)),
}
EXERCISES = {"02": ["02.a", "02.b", "02.c"], "00": ["00.relu"]}


def gradebook(tmp_path: Path, files: dict) -> Path:
    path = tmp_path / "grades.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for label, (nb, points) in files.items():
            for ex, p in zip(EXERCISES[nb], points):
                w.writerow([label, nb, ex, p, 1, "passed" if p else "failed", "", ""])
    return path


def test_recognize_the_lms_from_the_file_names():
    assert recognize(list(CANVAS_FILES))[0] == "canvas"
    assert recognize(list(MOODLE_FILES))[0] == "moodle"
    assert recognize(["alice/02_x.ipynb"])[0] == "plain"
    assert recognize([*CANVAS_FILES, *MOODLE_FILES])[0] == "plain"  # mixed: say which


def test_canvas_totals_pass_canvas_importer(tmp_path):
    rows = read_rows(gradebook(tmp_path, CANVAS_FILES))
    totals = compute_totals(rows, policy="latest", late_penalty=10)
    out = tmp_path / "canvas.csv"
    warnings = write_for("canvas", out, totals, parse_assignments(["2=555", "00=554"]))
    assert not warnings
    grades = canvas_import(out, {"555", "554"}, {"12345", "23456"})
    # latest: smithjohn's file 800 (1 point) counts, not the better 700; doejane's late 02
    # loses 10 % of 3 points
    assert grades == {
        ("12345", "555"): 1.0,
        ("23456", "555"): 1.7,
        ("23456", "554"): 1.0,
    }
    assert out.read_text().splitlines()[1] == "Points Possible,,,,,1,3"
    best = compute_totals(rows, policy="best")
    write_for("canvas", out, best, parse_assignments(["02=555", "00=554"]))
    assert canvas_import(out, {"555", "554"}, {"12345", "23456"})[("12345", "555")] == 3.0


def test_canvas_assignment_numbers():
    """NN=ID, with a notebook between two others too (07b)."""
    assert parse_assignments(["2=555", "07b=7", " 7b = 8 "]) == {"02": "555", "07b": "8"}
    with pytest.raises(ValueError):
        parse_assignments(["07B=7"])


def test_canvas_without_ids_is_refused_by_the_rules_and_warned(tmp_path):
    totals = compute_totals(read_rows(gradebook(tmp_path, CANVAS_FILES)))
    warnings = write_for("canvas", tmp_path / "c.csv", totals, {})
    assert any("--canvas-assignment" in w for w in warnings)
    with pytest.raises(AssertionError, match="new assignment"):
        canvas_import(tmp_path / "c.csv", {"555"}, {"12345", "23456"})


def test_the_plain_totals_would_be_refused_by_canvas(tmp_path):
    """The rules are not empty: the old ``student,id,...`` file fails them."""
    totals = compute_totals(read_rows(gradebook(tmp_path, CANVAS_FILES)))
    write_for("plain", tmp_path / "plain.csv", totals, {})
    with pytest.raises(AssertionError, match="header"):
        canvas_import(tmp_path / "plain.csv", {"555"}, {"12345"})


def test_moodle_worksheets_pass_moodle_importer(tmp_path):
    files = {**MOODLE_FILES, "stray/02_attention.ipynb": ("02", (1, 1, 1))}
    totals = compute_totals(read_rows(gradebook(tmp_path, files)))
    before = datetime.now(timezone.utc) - timedelta(seconds=1)
    warnings = write_for("moodle", tmp_path / "totals.csv", totals, {})
    assert any("stray" in w for w in warnings)  # no participant id: left out, and said so
    sheet = moodle_path(tmp_path / "totals.csv", "02")
    assert sheet.name == "totals_02.csv"
    grades = moodle_import(sheet, {"345678", "345679"}, 3.0, before)
    assert grades == {"345678": 3.0, "345679": 1.0}
    with open(sheet, newline="", encoding="utf-8") as f:
        first = next(csv.DictReader(f))
    assert first["Full name"] == "Ann Lee" and first["Maximum grade"] == "3"


def test_moodle_rules_catch_a_grade_over_the_maximum(tmp_path):
    totals = compute_totals(read_rows(gradebook(tmp_path, MOODLE_FILES)))
    write_for("moodle", tmp_path / "t.csv", totals, {})
    with pytest.raises(AssertionError):
        moodle_import(tmp_path / "t_02.csv", {"345678", "345679"}, 2.0, datetime.now(timezone.utc))


def test_ontime_policy_prefers_an_on_time_submission(tmp_path):
    files = {
        "kimlee_1_10_02_a.ipynb": ("02", (1, 0, 0)),
        "kimlee_LATE_1_11_02_a.ipynb": ("02", (1, 1, 1)),
    }
    rows = read_rows(gradebook(tmp_path, files))
    [latest] = compute_totals(rows).students.values()
    [ontime] = compute_totals(rows, policy="ontime").students.values()
    assert (latest["02"].points, latest["02"].late) == (3.0, True)
    assert (ontime["02"].points, ontime["02"].late) == (1.0, False)


def test_grade_merge_writes_canvas_totals(tmp_path, capsys):
    from helpers.checks import REGISTRY

    # merge takes the course's exercises only, each with its points possible (issue 42)
    real = dict(zip(EXERCISES["02"], ["02.causal_mask", "02.padding_mask", "02.q_saturation"]))
    rows = [
        [sub, nb, real.get(ex, ex), str(float(p) * REGISTRY[real.get(ex, ex)].points),
         str(REGISTRY[real.get(ex, ex)].points), *rest]
        for sub, nb, ex, p, _, *rest in read_table(gradebook(tmp_path, CANVAS_FILES))[1]
    ]  # fmt: skip
    book = tmp_path / "real.csv"
    write_table(book, COLUMNS, rows)
    out = tmp_path / "t.csv"
    args = ["grade", "merge", str(tmp_path / "m.csv"), str(book), "--totals", str(out)]
    assert main([*args, "--canvas-assignment", "02=555", "--canvas-assignment", "0=554"]) == 0
    assert "format: canvas" in capsys.readouterr().err
    assert canvas_import(out, {"555", "554"}, {"12345", "23456"})
    assert main([*args, "--canvas-assignment", "02:555"]) == 2
    assert main([*args, "--late-penalty", "150"]) == 2
