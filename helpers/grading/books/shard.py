"""Grading beyond one machine: ``--shard K/N`` and ``python -m helpers grade merge``.

A submission belongs to shard ``1 + sha256(label) mod N``, where the label is its path
relative to the folder given on the command line (what the gradebook's ``submission`` column
holds). The partition depends on nothing else, so every machine that sees the same folder
layout computes the same one, with no coordination: run shard 1/N ... N/N anywhere, then merge.
``--shard auto`` reads K/N from a Slurm job array, ``--shard auto/N`` from a Kubernetes
Indexed Job. Each gradebook's record (gradebook.py) says which shard of how many it is, its seed
and its submissions: merging refuses a part missing, given twice, unfinished, or graded with
another seed, and a part with a row its record does not vouch for (:func:`check_rows`: a
submission it does not list, an exercise the course does not have, points outside 0 and the
exercise's maximum): a part is a file anyone could have edited, and its rows become grades.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from .gradebook import (
    GradebookError,
    exercise_order,
    read_record,
    read_table,
    record_path,
    write_record,
    write_table,
)

SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_from_env(text: str, env) -> str:
    """``auto``: K/N of a Slurm job array (``SLURM_ARRAY_TASK_ID``, ``_MIN``, ``_COUNT``,
    ``_STEP``); ``auto/N``: K = ``JOB_COMPLETION_INDEX`` + 1 of a Kubernetes Indexed Job."""
    m = re.fullmatch(r"\s*auto\s*(?:/\s*(\d+)\s*)?", text)
    if not m:
        return text
    n = m.group(1)
    if n is not None and env.get("JOB_COMPLETION_INDEX", "").isdigit():
        return f"{int(env['JOB_COMPLETION_INDEX']) + 1}/{n}"
    slurm = [env.get(f"SLURM_ARRAY_TASK_{v}", "") for v in ("ID", "MIN", "COUNT", "STEP")]
    if all(x.isdigit() for x in slurm[:3]):
        task, first, count = map(int, slurm[:3])
        step = int(slurm[3]) if slurm[3].isdigit() and int(slurm[3]) > 0 else 1
        if n is not None and int(n) != count:
            raise ValueError(f"--shard {text}: the Slurm array has {count} tasks, not {n}")
        return f"{(task - first) // step + 1}/{count}"
    raise ValueError(
        f"--shard {text}: no JOB_COMPLETION_INDEX (Kubernetes Indexed Job, with auto/N) and "
        "no SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (Slurm array)"
    )


def parse_shard(text: str, env=None) -> tuple[int, int]:
    """``"K/N"`` (or ``auto``, ``auto/N`` with ``env``, the environment: see
    :func:`shard_from_env`) -> (K, N) with 1 <= K <= N; ValueError with a readable message."""
    import os

    text = shard_from_env(text or "", os.environ if env is None else env)
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
    the same part given twice), and so are parts with different columns, and what
    :func:`check_parts` refuses. ``out`` gets the record of the whole.
    """
    if not parts:
        raise GradebookError("no gradebooks to merge")
    whole = check_parts(parts)
    header: list[str] | None = None
    rows: list[list[str]] = []
    owner: dict[str, str] = {}  # submission -> the part it came from
    for part in parts:
        part_header, part_rows = read_table(part)
        if header is None:
            header = part_header
        elif part_header != header:
            raise GradebookError(f"{part} has the columns {part_header}, {parts[0]} has {header}")
        check_rows(part, header, part_rows, read_record(part))
        col = header.index("submission")
        for sub in {r[col] for r in part_rows}:
            if sub in owner:
                raise GradebookError(
                    f"submission {sub!r} is in both {owner[sub]} and "
                    f"{part}: were the shards graded with the same N?"
                )
            owner[sub] = str(part)
        rows += part_rows
    assert header is not None
    order = exercise_order()
    sub_col, ex_col = header.index("submission"), header.index("exercise")
    # the grader's final order: by submission label, then by the exercise's registry position
    rows.sort(key=lambda r: (r[sub_col], order.get(r[ex_col], -1)))
    write_table(out, header, rows)
    if whole is not None:
        write_record(out, whole)
    else:  # no record to write: none of an earlier run may stay beside the new file
        record_path(out).unlink(missing_ok=True)
    return len(rows)


def check_rows(part: str | Path, header: list[str], rows: list[list[str]], record) -> None:
    """GradebookError, naming the part and the row, for a row that names a submission the part's
    ``record`` does not list (when it has one), an exercise not in the course, points possible
    other than the exercise's, or points outside 0 and those (a gradebook's problem row, with no
    exercise, has none)."""
    from ...checks import EXERCISES
    from .gradebook import STATUSES

    col = {name: i for i, name in enumerate(header)}
    listed = set(record["submissions"]) if record is not None else None
    for n, row in enumerate(rows, start=1):
        sub, ex, notebook = row[col["submission"]], row[col["exercise"]], row[col["notebook"]]
        exercise = EXERCISES.get(ex)
        possible = exercise.points if exercise else 0.0
        try:
            points, most = float(row[col["points"]]), float(row[col["max_points"]])
        except ValueError:
            points = most = float("nan")
        if listed is not None and sub not in listed:
            why = f"its record ({record_path(part)}) does not list the submission {sub!r}"
        elif ex and (exercise is None or exercise.notebook != notebook):
            why = f"{sub!r}: the course has no exercise {ex!r} in notebook {notebook!r}"
        elif most != possible:
            why = f"{sub!r}, {ex or 'no exercise'}: {row[col['max_points']]} points possible, "
            why += f"not {possible:g}"
        elif not 0 <= points <= most:
            why = f"{sub!r}, {ex}: {row[col['points']]} points of {most:g}"
        elif row[col["status"]] not in STATUSES:
            why = f"{sub!r}, {ex}: no status {row[col['status']]!r}"
        else:
            continue
        raise GradebookError(
            f"{part}, row {n}: {why}: not merged (is it a gradebook of this grader?)"
        )


def check_parts(parts: Sequence[str | Path]) -> dict | None:
    """The parts' records agree and none is missing: one seed, one N, each K of 1..N once,
    each part holding every submission its record lists. Returns the record of the merged
    gradebook; None when no part has a record (older gradebooks: nothing can be checked)."""
    records = {str(p): read_record(p) for p in parts}
    if all(r is None for r in records.values()):
        return None
    without = [p for p, r in records.items() if r is None]
    if without:
        raise GradebookError(f"no record ({', '.join(without)}.json): not graded by this version")
    seeds = {p: r.get("seed") for p, r in records.items()}
    if len(set(seeds.values())) > 1:
        raise GradebookError(
            "parts graded with different seeds (students got different inputs): "
            + ", ".join(f"{p}: {s}" for p, s in seeds.items())
        )
    shards = {p: tuple(r["shard"]) if r.get("shard") else None for p, r in records.items()}
    if any(s is not None for s in shards.values()):
        ns = {s[1] if s else None for s in shards.values()}
        if len(ns) > 1:
            raise GradebookError(
                "parts of different shardings: "
                + ", ".join(f"{p}: {f'{s[0]}/{s[1]}' if s else 'all'}" for p, s in shards.items())
            )
        n = ns.pop()
        by_k: dict[int, list[str]] = {}
        for p, s in shards.items():
            by_k.setdefault(s[0], []).append(p)
        twice = {k: ps for k, ps in by_k.items() if len(ps) > 1}
        if twice:
            raise GradebookError(
                "shard given twice: "
                + "; ".join(f"{k}/{n} in {', '.join(ps)}" for k, ps in sorted(twice.items()))
            )
        missing = [k for k in range(1, n + 1) if k not in by_k]
        if missing:
            raise GradebookError(
                f"missing shard(s): {', '.join(f'{k}/{n}' for k in missing)} (merge all {n})"
            )
    for p, r in records.items():
        header, rows = read_table(p)
        have = {row[header.index("submission")] for row in rows}
        lacking = [s for s in r["submissions"] if s not in have]
        if lacking:
            raise GradebookError(
                f"{p} is unfinished: {len(lacking)} of its {len(r['submissions'])} submissions "
                f"have no rows (e.g. {lacking[0]!r}); finish it with --resume"
            )
    return {
        "seed": next(iter(seeds.values())),
        "shard": None,
        "found": max(int(r.get("found", 0)) for r in records.values()),
        "submissions": sorted({s for r in records.values() for s in r["submissions"]}),
    }
