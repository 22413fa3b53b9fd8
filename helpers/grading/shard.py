"""Grading beyond one machine: ``--shard K/N`` and ``python -m helpers grade merge``.

A submission belongs to shard ``1 + sha256(label) mod N``, where the label is its path
relative to the folder given on the command line (what the gradebook's ``submission`` column
holds). The partition depends on nothing else, so every machine that sees the same folder
layout computes the same one, with no coordination: run shard 1/N ... N/N anywhere, then merge.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from .book import GradebookError, exercise_order, read_table, unquote, write_table

SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> (K, N) with 1 <= K <= N; ValueError with a readable message otherwise."""
    m = SHARD_RE.match(text or "")
    if not m:
        raise ValueError(f"--shard takes K/N (e.g. 2/8), got {text!r}")
    k, n = int(m.group(1)), int(m.group(2))
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: K must be between 1 and N (shards are numbered from 1)")
    return k, n


def shard_of(label: str, n: int) -> int:
    """The shard (1..n) of a submission label: stable across machines and Python versions."""
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % n


def select(subs: list, k: int, n: int) -> list:
    """The submissions (anything with a ``label``) of shard ``k`` of ``n``."""
    return [s for s in subs if shard_of(s.label, n) == k]


def merge(out: str | Path, parts: Sequence[str | Path]) -> int:
    """Merge the gradebooks ``parts`` into ``out``, sorted as one unsharded run sorts them.

    Returns the number of rows. A submission in two parts is an error (overlapping shards, or
    the same part given twice), and so are parts with different columns.
    """
    if not parts:
        raise GradebookError("no gradebooks to merge")
    header: list[str] | None = None
    rows: list[list[str]] = []
    owner: dict[str, str] = {}  # submission -> the part it came from
    for part in parts:
        part_header, part_rows = read_table(part)
        if header is None:
            header = part_header
        elif part_header != header:
            raise GradebookError(f"{part} has the columns {part_header}, {parts[0]} has {header}")
        col = header.index("submission")
        for sub in {r[col] for r in part_rows}:
            if sub in owner:
                raise GradebookError(
                    f"submission {unquote(sub)!r} is in both {owner[sub]} and "
                    f"{part}: were the shards graded with the same N?"
                )
            owner[sub] = str(part)
        rows += part_rows
    assert header is not None
    order = exercise_order()
    sub_col, ex_col = header.index("submission"), header.index("exercise")
    # the grader's final order: by submission label, then by the exercise's registry position
    rows.sort(key=lambda r: (unquote(r[sub_col]), order.get(r[ex_col], -1)))
    write_table(out, header, rows)
    return len(rows)
