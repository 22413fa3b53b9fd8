"""The gradebook CSV (written by the grader's process only) and the summary on stdout."""

from __future__ import annotations

import csv
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from .book import unquote
from .records import COLUMNS, OLD_COLUMNS, STATUSES, BatchResult, Row, UsageError


def row_from_csv(fields: list[str], columns: list[str] = COLUMNS) -> Row | None:
    """A row of a gradebook with ``columns`` (current or pre-`mistake`); None if cut short."""
    if len(fields) != len(columns):
        return None
    d = dict(zip(columns, fields))
    try:
        return Row(  # the CSV-injection quote undone: --resume matches labels as written
            unquote(d["submission"]),
            d["notebook"],
            d["exercise"],
            float(d["points"]),
            float(d["max_points"]),
            d["status"],
            unquote(d["message"]),
            d.get("mistake", ""),
        )
    except ValueError:
        return None


def read_gradebook(path: Path) -> list[Row]:
    """The rows of a gradebook this command wrote (also one from before the `mistake` column)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header not in (COLUMNS, OLD_COLUMNS):
            raise UsageError(f"{path} is not a gradebook written by this command (header {header})")
        return [r for r in (row_from_csv(fields, header) for fields in reader) if r is not None]


def _write_atomically(path: Path, rows: list[Row]) -> None:
    """Write the whole file beside ``path`` and rename it over: never a half-written gradebook."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(r.csv_fields() for r in rows)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class Gradebook:
    """The CSV, written a submission at a time and flushed to disk each time (a crash of the
    grader loses nothing graded); :meth:`finish` rewrites it sorted, by an atomic rename."""

    def __init__(self, path: Path, kept: list[Row]):
        self.path = path
        _write_atomically(path, kept)
        self.file = open(path, "a", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)

    def add(self, rows: list[Row]) -> None:
        self.writer.writerows(r.csv_fields() for r in rows)
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()

    def finish(self, rows: list[Row]) -> None:
        self.close()
        _write_atomically(self.path, rows)


FEEDBACK_NAME_BYTES = 200  # a feedback file's name (a deep folder's path) is cut to this


def feedback_path(folder: Path, label: str) -> Path:
    name = (
        re.sub(r"[^\w.\-]+", "_", label.removesuffix(".ipynb").replace("/", "__")) or "submission"
    )
    if len(name.encode()) > FEEDBACK_NAME_BYTES:  # file systems refuse names past 255 bytes
        digest = hashlib.sha256(label.encode()).hexdigest()[:12]
        tail = name.encode()[-(FEEDBACK_NAME_BYTES - 16) :].decode(errors="ignore")
        name = f"{digest}--{tail}"
    return folder / f"{name}.md"


def summary_table(result: BatchResult) -> str:
    """Per notebook: submissions, mean score, and the rows by status."""
    by_nb: dict[str, dict[str, Any]] = {}
    for r in result.rows:
        d = by_nb.setdefault(r.notebook or "?", {"subs": {}, **dict.fromkeys(STATUSES, 0)})
        pts, mx = d["subs"].get(r.submission, (0.0, 0.0))
        d["subs"][r.submission] = (pts + r.points, mx + r.max_points)
        if r.status in STATUSES:
            d[r.status] += 1
    head = ["notebook", "submissions", "mean score", *STATUSES]
    lines = []
    for nb, d in sorted(by_nb.items()):
        scores = list(d["subs"].values())
        mean = sum(p for p, _ in scores) / len(scores)
        mx = max(m for _, m in scores)
        pct = f" ({100 * mean / mx:.0f} %)" if mx else ""
        lines.append(
            [nb, str(len(scores)), f"{mean:.2f} / {mx:g}{pct}", *(str(d[s]) for s in STATUSES)]
        )
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt = "  ".join(f"{{:{'<' if i < 3 else '>'}{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*head)] + [fmt.format(*ln) for ln in lines])
