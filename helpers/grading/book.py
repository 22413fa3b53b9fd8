"""Finished gradebooks read back, for totals, the class report and merging shards.

A gradebook is the CSV ``python -m helpers grade`` writes: ``submission, notebook, exercise,
points, max_points, status, [mistake,] message``. The ``mistake`` column (a code such as
``02.scaled_dot_product_attention/no_scale``) may be absent in older gradebooks: read as "".
"""

from __future__ import annotations

import csv
from pathlib import Path

from .records import Row

REQUIRED = ("submission", "notebook", "exercise", "points", "max_points", "status", "message")
FORMULA_START = ("=", "+", "-", "@")


class GradebookError(ValueError):
    """Not a gradebook this command wrote; the message names the file."""


def unquote(text: str) -> str:
    """Undo the grader's CSV-injection guard (a leading quote before = + - @)."""
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA_START else text


def read_table(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """The header and the raw rows (strings as written), for merging without reformatting."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            rows = [r for r in reader if r]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GradebookError(f"{path}: cannot read ({type(exc).__name__}: {exc})") from None
    if header is None or not set(REQUIRED) <= set(header):
        raise GradebookError(
            f"{path} is not a gradebook written by `python -m helpers grade` (header {header})"
        )
    if any(len(r) != len(header) for r in rows):
        raise GradebookError(f"{path}: a row does not have {len(header)} fields")
    return header, rows


def read_rows(path: str | Path) -> list[Row]:
    header, raw = read_table(path)
    col = {name: i for i, name in enumerate(header)}
    rows = []
    for fields in raw:
        try:
            points, max_points = float(fields[col["points"]]), float(fields[col["max_points"]])
        except ValueError:
            raise GradebookError(f"{path}: points that are not numbers in {fields}") from None
        rows.append(
            Row(
                submission=unquote(fields[col["submission"]]),
                notebook=fields[col["notebook"]],
                exercise=fields[col["exercise"]],
                points=points,
                max_points=max_points,
                status=fields[col["status"]],
                message=unquote(fields[col["message"]]),
                mistake=fields[col["mistake"]] if "mistake" in col else "",
            )
        )
    return rows


def exercise_order() -> dict[str, int]:
    """Exercise id -> its position in the registry (the order the grader writes rows in)."""
    from ..checks import REGISTRY

    return {ex_id: i for i, ex_id in enumerate(REGISTRY)}


def write_table(path: str | Path, header: list[str], rows: list[list[str]]) -> None:
    """Write atomically: a half-written gradebook never replaces a whole one."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    tmp.replace(path)


# --------------------------------------------------------------------------- the record


def record_path(gradebook: str | Path) -> Path:
    """The record beside a gradebook: ``grades.csv`` -> ``grades.csv.json``."""
    return Path(f"{gradebook}.json")


def write_record(gradebook: str | Path, record: dict) -> None:
    """What a gradebook covers: ``seed``, ``shard`` ([K, N] or None), ``found`` (submissions
    found before sharding) and ``submissions`` (the labels it is to hold). Atomic."""
    import json

    path = record_path(gradebook)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_record(gradebook: str | Path) -> dict | None:
    """The record of a gradebook (None: none was written, e.g. an older gradebook)."""
    import json

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
