"""The gradebook: the CSV ``python -m helpers grade`` writes, read back and written here alone.

Columns ``submission, notebook, exercise, points, max_points, status, mistake, message``; the
``mistake`` column (a code such as ``02.scaled_dot_product_attention/no_scale``) is absent in
older gradebooks and read as "". Every CSV the grader writes (the gradebook, a merge, the
totals, the LMS files) is written by :class:`CsvWriter` alone, which puts every cell through
:func:`guard`: no control character reaches a cell, and text a spreadsheet would take for a
formula gets a leading quote; :func:`read_table` reads every cell back without it. Every file
is written whole beside its place, flushed to disk and renamed over it
(:func:`write_atomically`): a crash never leaves half a gradebook. Beside each gradebook, its
record (``grades.csv.json``): seed, shard, the submissions it is to hold.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from ..records import Row, UsageError

COLUMNS = [
    "submission",
    "notebook",
    "exercise",
    "points",
    "max_points",
    "status",
    "mistake",
    "message",
]
OLD_COLUMNS = [c for c in COLUMNS if c != "mistake"]  # gradebooks written before `mistake`
STATUSES = ("passed", "failed", "error", "timeout", "missing")
FORMULA_START = ("=", "+", "-", "@")
QUOTED_START = (*FORMULA_START, "'")  # after the quote guard() adds: what unguard() takes off


class GradebookError(UsageError):
    """Not a gradebook this command wrote; the message names the file."""


# control characters (terminal escapes, NUL, BEL...) and the marks that reorder text on screen
UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def plain(text: str) -> str:
    """``text`` without what a terminal, an editor or a spreadsheet would act on instead of show
    (ESC sequences, OSC clipboard writes, NUL, bidi overrides): each becomes U+FFFD."""
    return UNPRINTABLE.sub("\ufffd", text)


# in a CSV cell, also what breaks a line or a field (a tab then "=" starts a formula in a
# spreadsheet that splits on tabs)
UNPRINTABLE_IN_CELL = re.compile(f"{UNPRINTABLE.pattern}|[\t\n\r\u2028\u2029]")
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?")  # as f"{x:g}" writes one


def guard(text: str) -> str:
    """``text`` as a CSV cell: every control character replaced (U+FFFD), and text a spreadsheet
    would read as a formula (CSV injection), or that starts with the quote this adds, gets a
    leading quote; a number stays as it is. :func:`unguard` takes the quote off."""
    text = UNPRINTABLE_IN_CELL.sub("\ufffd", str(text))
    if NUMBER.fullmatch(text):
        return text
    quoted = text[:1] == "'" and text[1:2] in QUOTED_START
    return "'" + text if text[:1] in FORMULA_START or quoted else text


def unguard(text: str) -> str:
    """Undo :func:`guard`."""
    return text[1:] if text[:1] == "'" and text[1:2] in QUOTED_START else text


class CsvWriter:
    """``csv.writer(f)`` whose every cell goes through :func:`guard`: the one way the grader
    writes a CSV."""

    def __init__(self, f: IO[str]):
        self._writer = csv.writer(f)

    def writerow(self, row: Iterable) -> None:
        self._writer.writerow([guard(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable]) -> None:
        for row in rows:
            self.writerow(row)


def fields(row: Row) -> list[str]:
    """A row as the gradebook writes it (``COLUMNS``)."""
    return [
        row.submission,
        row.notebook,
        row.exercise,
        f"{row.points:g}",
        f"{row.max_points:g}",
        row.status,
        row.mistake,
        " | ".join(row.message.splitlines()),
    ]


def exercise_order() -> dict[str, int]:
    """Exercise id -> its position in the registry: rows go by submission, then this."""
    from ...checks import REGISTRY

    return {ex_id: i for i, ex_id in enumerate(REGISTRY)}


def in_order(rows: Iterable[Row]) -> list[Row]:
    """``rows`` as a gradebook holds them: by submission, then in the exercises' order."""
    order = exercise_order()
    return sorted(rows, key=lambda r: (r.submission, order.get(r.exercise, -1)))


def per_submission(rows: Iterable[Row]) -> dict[str, tuple[str, float, float]]:
    """Submission -> (its notebook, points, points possible), summed over its rows."""
    sums: dict[str, tuple[str, float, float]] = {}
    for r in rows:
        nb, pts, mx = sums.get(r.submission, (r.notebook, 0.0, 0.0))
        sums[r.submission] = (nb or r.notebook, pts + r.points, mx + r.max_points)
    return sums


# --------------------------------------------------------------------------- reading


def read_table(path: str | Path, partial: bool = False) -> tuple[list[str], list[list[str]]]:
    """The header and the rows, each cell's text as it was before :func:`guard` (merging writes
    them again as they are). ``partial``: a row cut short (the grader stopped while writing it)
    is left out, not an error."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            rows = [[unguard(cell) for cell in r] for r in reader if r]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GradebookError(f"{path}: cannot read ({type(exc).__name__}: {exc})") from None
    if header is None or not set(OLD_COLUMNS) <= set(header):
        raise GradebookError(
            f"{path} is not a gradebook written by `python -m helpers grade` (header {header})"
        )
    whole = [r for r in rows if len(r) == len(header)]
    if len(whole) < len(rows) and not partial:
        raise GradebookError(f"{path}: a row does not have {len(header)} fields")
    return header, whole


def read_rows(path: str | Path, partial: bool = False) -> list[Row]:
    """The rows of a gradebook (``partial``: see :func:`read_table`; a row whose points are not
    numbers is then left out too). The one reader: ``--resume``, merge, totals, the report."""
    header, raw = read_table(path, partial)
    col = {name: i for i, name in enumerate(header)}
    rows = []
    for f in raw:
        try:
            points, max_points = float(f[col["points"]]), float(f[col["max_points"]])
        except ValueError:
            if partial:
                continue
            raise GradebookError(f"{path}: points that are not numbers in {f}") from None
        rows.append(
            Row(
                submission=f[col["submission"]],
                notebook=f[col["notebook"]],
                exercise=f[col["exercise"]],
                points=points,
                max_points=max_points,
                status=f[col["status"]],
                message=f[col["message"]],
                mistake=f[col["mistake"]] if "mistake" in col else "",
            )
        )
    return rows


# --------------------------------------------------------------------------- writing


def write_atomically(path: str | Path, write: Callable[[IO[str]], None]) -> None:
    """``write(file)`` into a file beside ``path``, flushed to disk, then renamed over it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_table(path: str | Path, header: list[str], rows: Iterable[list[str]]) -> None:
    """A CSV (a gradebook, the totals, a worksheet), written atomically."""

    def write(f: IO[str]) -> None:
        w = CsvWriter(f)
        w.writerow(header)
        w.writerows(rows)

    write_atomically(path, write)


class Gradebook:
    """The CSV, written a submission at a time and flushed to disk each time (a crash of the
    grader loses nothing graded); :meth:`finish` rewrites it sorted, by an atomic rename."""

    def __init__(self, path: Path, kept: list[Row]):
        self.path = path
        write_table(path, COLUMNS, map(fields, kept))
        self.file = open(path, "a", newline="", encoding="utf-8")
        self.writer = CsvWriter(self.file)

    def add(self, rows: list[Row]) -> None:
        self.writer.writerows(map(fields, rows))
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()

    def finish(self, rows: list[Row]) -> None:
        self.close()
        write_table(self.path, COLUMNS, map(fields, rows))


# --------------------------------------------------------------------------- the record


def record_path(gradebook: str | Path) -> Path:
    """The record beside a gradebook: ``grades.csv`` -> ``grades.csv.json``."""
    return Path(f"{gradebook}.json")


def write_record(gradebook: str | Path, record: dict) -> None:
    """What a gradebook covers: ``seed``, ``shard`` ([K, N] or None), ``found`` (submissions
    found before sharding) and ``submissions`` (the labels it is to hold). Atomic."""
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    write_atomically(record_path(gradebook), lambda f: f.write(text))


def read_record(gradebook: str | Path) -> dict | None:
    """The record of a gradebook (None: none was written, e.g. an older gradebook)."""
    path = record_path(gradebook)
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        ok = isinstance(record, dict) and isinstance(record.get("submissions"), list)
    except (OSError, ValueError) as exc:
        raise GradebookError(f"{path}: cannot read the gradebook's record ({exc})") from None
    if not ok:
        raise GradebookError(f"{path} is not a gradebook's record")
    return record
