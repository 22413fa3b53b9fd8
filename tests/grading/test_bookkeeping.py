"""Safe bookkeeping without kernels: each gradebook's record (seed, shard, submissions),
``grade merge`` refusing a missing, doubled, unfinished or differently seeded part,
``--resume`` keeping the recorded seed, and ``--shard auto`` from Slurm and Kubernetes."""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.grading.books.gradebook import GradebookError, read_record, write_record
from helpers.grading.books.shard import merge, parse_shard, shard_of
from helpers.grading.cli import resume_seed

from .classbook import COLUMNS

LABELS = [f"s{i}/00_welcome.ipynb" for i in range(12)]


@pytest.mark.parametrize(
    "text,env,expected",
    [
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "5",
                "SLURM_ARRAY_TASK_MIN": "4",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            (2, 3),
        ),
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "0",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            (1, 4),
        ),
        # --array=0-12:4 -> tasks 0, 4, 8, 12
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "8",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_COUNT": "4",
                "SLURM_ARRAY_TASK_STEP": "4",
            },
            (3, 4),
        ),
        ("auto/5", {"JOB_COMPLETION_INDEX": "0"}, (1, 5)),
        ("auto/5", {"JOB_COMPLETION_INDEX": "4"}, (5, 5)),
        ("2/3", {"JOB_COMPLETION_INDEX": "0"}, (2, 3)),  # explicit K/N wins
    ],
)
def test_shard_auto(text, env, expected):
    assert parse_shard(text, env) == expected


@pytest.mark.parametrize(
    "text,env,match",
    [
        ("auto", {}, "SLURM_ARRAY_TASK_ID"),
        ("auto", {"JOB_COMPLETION_INDEX": "1"}, "auto/N"),  # Kubernetes needs N
        ("auto/5", {"JOB_COMPLETION_INDEX": "5"}, "between 1 and N"),
        (
            "auto/2",
            {
                "SLURM_ARRAY_TASK_ID": "1",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            "3 tasks, not 2",
        ),
    ],
)
def test_shard_auto_refuses(text, env, match):
    with pytest.raises(ValueError, match=match):
        parse_shard(text, env)


def part(tmp_path: Path, name: str, k: int | None, n: int, seed: int = 7, drop: int = 0) -> str:
    """A shard's gradebook and record, as `grade --shard k/n` writes them (``drop``: the last
    submissions' rows missing, as in a run that was interrupted)."""
    mine = [lb for lb in LABELS if k is None or shard_of(lb, n) == k]
    path = tmp_path / name
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for lb in mine[: len(mine) - drop]:
            w.writerow([lb, "00", "00.relu", "1", "1", "passed", "", "ok"])
    shard = [k, n] if k is not None else None
    write_record(path, {"seed": seed, "shard": shard, "found": 12, "submissions": mine})
    return str(path)


def test_merge_checks_the_parts(tmp_path):
    assert {shard_of(lb, 3) for lb in LABELS} == {1, 2, 3}
    p1, p2, p3 = (part(tmp_path, f"p{k}.csv", k, 3) for k in (1, 2, 3))
    assert merge(tmp_path / "m.csv", [p1, p2, p3]) == 12
    record = read_record(tmp_path / "m.csv")
    assert record["submissions"] == sorted(LABELS) and record["seed"] == 7
    with pytest.raises(GradebookError, match="missing shard.*3/3"):
        merge(tmp_path / "m.csv", [p1, p2])
    copy = tmp_path / "copy_of_p2.csv"
    copy.write_bytes(Path(p2).read_bytes())
    write_record(copy, read_record(p2))
    with pytest.raises(GradebookError, match="2/3 in .*p2.csv, .*copy_of_p2.csv"):
        merge(tmp_path / "m.csv", [p1, p2, str(copy), p3])
    other_seed = part(tmp_path, "q3.csv", 3, 3, seed=8)
    with pytest.raises(GradebookError, match="different seeds"):
        merge(tmp_path / "m.csv", [p1, p2, other_seed])
    unfinished = part(tmp_path, "u3.csv", 3, 3, drop=1)
    with pytest.raises(GradebookError, match="u3.csv is unfinished.*--resume"):
        merge(tmp_path / "m.csv", [p1, p2, unfinished])
    four = part(tmp_path, "f1.csv", 1, 4)
    with pytest.raises(GradebookError, match="different shardings"):
        merge(tmp_path / "m.csv", [four, p2, p3])


def test_merge_command_names_the_missing_part(tmp_path, capsys):
    p1, p3 = part(tmp_path, "p1.csv", 1, 3), part(tmp_path, "p3.csv", 3, 3)
    assert main(["grade", "merge", str(tmp_path / "m.csv"), p1, p3]) == 2
    assert "missing shard(s): 2/3" in capsys.readouterr().err


def options(tmp_path: Path, **kw) -> argparse.Namespace:
    kw.setdefault("out", str(tmp_path / "g.csv"))
    kw = {"resume": True, "seed": None, "new_seed": False, "shard": None, **kw}
    return argparse.Namespace(**kw)


def test_resume_keeps_the_recorded_seed(tmp_path):
    part(tmp_path, "g.csv", None, 1, seed=1234)
    assert resume_seed(options(tmp_path))[0] == 1234
    assert resume_seed(options(tmp_path, seed=1234))[0] == 1234
    with pytest.raises(ValueError, match="seed 1234.*--new-seed"):
        resume_seed(options(tmp_path, seed=99))
    seed, said = resume_seed(options(tmp_path, seed=99, new_seed=True))
    assert seed == 99 and "not 1234" in said
    with pytest.raises(ValueError, match="same --shard"):
        resume_seed(options(tmp_path, shard="1/2"))
    # no --resume: the record is not consulted
    assert resume_seed(options(tmp_path, resume=False, seed=5))[0] == 5


def test_grade_resume_with_another_seed_exits_2(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.ipynb").write_text("{}")
    part(tmp_path, "g.csv", None, 1, seed=1234)
    code = main(["grade", str(subs), "--out", str(tmp_path / "g.csv"), "--resume", "--seed", "3"])
    assert code == 2 and "--new-seed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "edit, said",
    [
        (
            {"points": "40"},
            r"row 2: 's\d+/00_welcome.ipynb', 00.relu: 40 points of 1",
        ),  # 40 x the maximum
        ({"points": "-1"}, "row 2: .*-1 points of 1"),
        ({"points": "nan"}, "row 2: .*nan points of 1"),
        ({"points": "40", "max_points": "40"}, "row 2: .*40 points possible, not 1"),
        ({"submission": "mallory.ipynb"}, r"row 8: its record \(.*p1.csv.json\) does not list"),
        ({"exercise": "00.nope"}, "row 2: .*no exercise '00.nope' in notebook '00'"),
        ({"notebook": "02"}, "row 2: .*no exercise '00.relu' in notebook '02'"),
        ({"status": "passed!"}, "row 2: .*no status 'passed!'"),
    ],
)
def test_merge_refuses_a_row_its_part_does_not_vouch_for(tmp_path, capsys, edit, said):
    """Issue 42: 40 times the maximum points and a submission no part's record lists were merged
    without a word. A part with such a row is refused (exit 2), naming the part and the row;
    nothing is written."""
    p1, p2, p3 = (part(tmp_path, f"p{k}.csv", k, 3) for k in (1, 2, 3))
    with open(p1, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if "submission" in edit:  # a row added
        rows.append({**rows[1], **edit})
    else:
        rows[1].update(edit)
    with open(p1, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    out = tmp_path / "m.csv"
    assert main(["grade", "merge", str(out), p1, p2, p3, "--totals", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert re.search(f"p1.csv, {said}", err), err
    assert not out.exists() and not (tmp_path / "t.csv").exists()
