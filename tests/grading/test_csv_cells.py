"""No control character reaches a CSV the grader writes, and no cell starts a formula (issue 42).

A tab or a newline in a file name reached grades.csv and totals.csv (a cell starting with a tab,
then ``=``: a formula to a spreadsheet that splits on tabs), and a student id taken by
``--student-pattern`` was written unguarded. Each writer is fed such text here: the gradebook,
a merge, the plain totals, Canvas's CSV and Moodle's worksheets.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

from helpers.grading.books.gradebook import Gradebook, read_rows, read_table
from helpers.grading.books.lms import compute_totals, write_totals
from helpers.grading.books.lms_export import write_canvas, write_moodle
from helpers.grading.books.shard import merge
from helpers.grading.records import Row

# student / id / file: each a way into a cell (--student-pattern reads the first two folders)
HOSTILE = [
    "\t=1+1/\t=2+2/00_a.ipynb",
    "\n=HYPERLINK(1)/\r@SUM(1)/00_b.ipynb",
    "=cmd|' /C calc'!A0/-1+1/00_c.ipynb",
    "'=quoted/+3/00_d.ipynb",
    "ann\u2028x\u202e/\x1b]52;c;aGk=\x07/00_e.ipynb",
]
PATTERN = re.compile(r"^(?P<student>[^/]+)/(?P<id>[^/]+)/")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def rows_of(labels: list[str]) -> list[Row]:
    return [
        Row(lb, "00", "00.relu", 1.0, 1.0, "failed", "a\tmessage\x1b[2J =x", "\t=mistake")
        for lb in labels
    ]


def cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return [cell for row in csv.reader(f) for cell in row]


def assert_inert(path: Path) -> None:
    for cell in cells(path):
        bad = [c for c in cell if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
        assert not bad, (path.name, cell)
        number = re.fullmatch(r"-?[0-9.]+(e[-+][0-9]+)?", cell)
        assert number or not cell.startswith(FORMULA), (path.name, cell)


def test_every_csv_the_grader_writes_is_inert(tmp_path):
    rows = rows_of(HOSTILE)
    book = Gradebook(tmp_path / "grades.csv", rows[:2])
    book.add(rows[2:])
    book.close()
    assert_inert(tmp_path / "grades.csv")  # rows as they arrive
    book.finish(rows)
    assert_inert(tmp_path / "grades.csv")  # the sorted rewrite
    Gradebook(tmp_path / "part1.csv", rows[:3]).finish(rows[:3])
    Gradebook(tmp_path / "part2.csv", rows[3:]).finish(rows[3:])
    merge(tmp_path / "merged.csv", [tmp_path / "part1.csv", tmp_path / "part2.csv"])
    assert_inert(tmp_path / "merged.csv")

    totals = compute_totals(read_rows(tmp_path / "merged.csv"), PATTERN)
    assert len(totals.students) == len(HOSTILE)
    write_totals(tmp_path / "totals.csv", totals)
    write_canvas(tmp_path / "canvas.csv", totals, {"00": "123"})
    write_moodle(tmp_path / "moodle.csv", totals, datetime(2024, 1, 1, tzinfo=timezone.utc))
    written = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert written == [
        "canvas.csv", "grades.csv", "merged.csv", "moodle_00.csv", "part1.csv", "part2.csv",
        "totals.csv",
    ]  # fmt: skip
    for path in tmp_path.glob("*.csv"):
        assert_inert(path)


def test_what_is_written_reads_back(tmp_path):
    """The quote a formula gets is taken off on reading, also from text that starts with one
    (``'=x`` and ``=x`` stay two submissions), and numbers stay numbers."""
    labels = ["=x.ipynb", "'=x.ipynb", "''=x.ipynb", "'a.ipynb", "-1.ipynb", "+.ipynb"]
    Gradebook(tmp_path / "g.csv", rows_of(labels)).close()
    back = read_rows(tmp_path / "g.csv")
    assert [r.submission for r in back] == labels
    assert all(r.points == 1.0 and r.mistake == "\ufffd=mistake" for r in back)
    _, raw = read_table(tmp_path / "g.csv")
    assert len({r[0] for r in raw}) == len(labels)
