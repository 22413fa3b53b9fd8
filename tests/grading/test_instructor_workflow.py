"""The instructor's workflow end to end, with real kernels: LMS zips to totals, three shards
merged against one unsharded run, and the Gradescope bundle's ``run_autograder``.

Submissions are tiny notebooks (00's relu, 01's softmax and attention) where grading speed is
the point, and notebook 02 made from the solution for Gradescope.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.checks import REGISTRY
from helpers.grading.books.gradebook import read_table
from helpers.grading.books.shard import shard_of

from ..speed import scaled
from .builders import load, plain_notebook, set_exercise, write

pytestmark = pytest.mark.slow

SEED = 5
RELU_OK = "import torch\n\ndef relu(x):\n    return torch.where(x > 0, x, torch.zeros_like(x))"
RELU_WRONG = "import torch\n\ndef relu(x):\n    return x.abs()"
NB01_OK = (
    "import torch\n\ndef softmax(x, dim=-1):\n    e = (x - x.amax(dim, keepdim=True)).exp()\n"
    "    return e / e.sum(dim, keepdim=True)\n\ndef dot_product_attention(x):\n"
    "    w = softmax(x @ x.transpose(-2, -1))\n    return w @ x, w"
)


def exercises_only(nb):
    """Notebook 02 cut to its exercise cells (the solutions' own code): fast to run."""
    keep = [c for c in nb.cells if c.get("metadata", {}).get("course", {}).get("exercise")]
    nb.cells = [plain_notebook("import math\n\nimport torch").cells[0], *keep]
    return nb


def points(notebook: str) -> float:
    return sum(ex.points for ex in REGISTRY.values() if ex.notebook == notebook)


def grade(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [
                "grade",
                *args,
                "--seed",
                str(SEED),
                "--jobs",
                "2",
                "--timeout",
                str(scaled(30)),
                "--memory",
                "3",
                "--no-progress",
            ]
        )
    assert code == 0, out.getvalue()
    return out.getvalue()


def test_lms_zips_to_totals(tmp_path):
    canvas, moodle = tmp_path / "canvas.zip", tmp_path / "moodle.zip"
    files = tmp_path / "files"
    with zipfile.ZipFile(canvas, "w") as z:
        for name, source, nb in [
            ("smithjohn_12345_67890_00_welcome.ipynb", RELU_OK, "00"),
            ("smithjohn_12345_67891_01_dot_product_attention.ipynb", NB01_OK, "01"),
            ("doejane_LATE_23456_78901_00_welcome-1.ipynb", RELU_WRONG, "00"),
        ]:
            z.write(write(plain_notebook(source, notebook=nb), files / name), name)
    with zipfile.ZipFile(moodle, "w") as z:
        name = "Ann Lee_345678_assignsubmission_file_/00_welcome.ipynb"
        z.write(write(plain_notebook(RELU_OK, notebook="00"), files / "moodle.ipynb"), name)
    book, totals = tmp_path / "grades.csv", tmp_path / "totals.csv"
    grade(str(canvas), str(moodle), "--out", str(book), "--totals", str(totals))
    _, rows = read_table(book)
    assert len({r[0] for r in rows}) == 4  # labels are the paths inside the zips
    with open(totals, newline="", encoding="utf-8") as f:
        got = {r["student"]: r for r in csv.DictReader(f)}
    # the points of what the submissions define (relu; softmax and dot_product_attention)
    relu = REGISTRY["00.relu"].points
    nb01 = REGISTRY["01.softmax"].points + REGISTRY["01.dot_product_attention"].points
    assert got == {
        "Ann Lee": {
            "student": "Ann Lee",
            "id": "345678",
            "00": f"{relu:g}",
            "01": "0",
            "total": f"{relu:g}",
            "late": "",
        },
        "doejane": {
            "student": "doejane",
            "id": "23456",
            "00": "0",
            "01": "0",
            "total": "0",
            "late": "00",
        },
        "smithjohn": {
            "student": "smithjohn",
            "id": "12345",
            "00": f"{relu:g}",
            "01": f"{nb01:g}",
            "total": f"{relu + nb01:g}",
            "late": "",
        },
    }


def test_three_slurm_array_shards_merged_equal_one_run(tmp_path, monkeypatch):
    """`--shard auto` in each task of a Slurm array `--array=1-3` (the variables Slurm sets)."""
    subs = tmp_path / "subs"
    for name, source, nb in [
        ("alice/00_welcome.ipynb", RELU_OK, "00"),
        ("bob/00_welcome.ipynb", RELU_WRONG, "00"),
        ("dave/01_dot_product_attention.ipynb", NB01_OK, "01"),
    ]:
        write(plain_notebook(source, notebook=nb), subs / name)
    (subs / "erin").mkdir()
    (subs / "erin" / "00_welcome.ipynb").write_text("not json", encoding="utf-8")
    labels = sorted(p.relative_to(subs).as_posix() for p in subs.rglob("*.ipynb"))
    assert len({shard_of(lb, 3) for lb in labels}) >= 2  # the merge has something to merge

    whole = tmp_path / "whole.csv"
    grade(str(subs), "--out", str(whole))
    parts = []
    monkeypatch.setenv("SLURM_ARRAY_TASK_MIN", "1")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "3")
    for k in (1, 2, 3):
        part = tmp_path / f"part{k}.csv"
        monkeypatch.setenv("SLURM_ARRAY_TASK_ID", str(k))
        grade(str(subs), "--out", str(part), "--shard", "auto")
        _, rows = read_table(part)
        assert {r[0] for r in rows} == {lb for lb in labels if shard_of(lb, 3) == k}
        parts.append(str(part))
    merged, totals, report = tmp_path / "merged.csv", tmp_path / "totals.csv", tmp_path / "r.html"
    assert (
        main(
            [
                "grade",
                "merge",
                str(merged),
                *parts,
                "--totals",
                str(totals),
                "--report",
                str(report),
            ]
        )
        == 0
    )
    assert merged.read_bytes() == whole.read_bytes()  # row for row, byte for byte
    assert main(["grade", "merge", str(tmp_path / "m2.csv"), *parts[:2]]) == 2  # 3/3 missing
    assert len(read_table(whole)[1]) >= len(labels)
    assert totals.is_file() and "<img" in report.read_text(encoding="utf-8")


def _run_autograder(
    root: Path, notebook: Path | None, upload_name: str, env=None, wrap=None, stdout=None
) -> dict:
    """Run the bundle's run_autograder on one upload (None: nothing uploaded); ``wrap``: a
    function of the command; ``stdout``: a list that gets what the script printed."""
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    (root / "submission").mkdir()
    if notebook is not None:
        shutil.copyfile(notebook, root / "submission" / upload_name)
    env = env or dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    cmd = ["bash", str(root / "run_autograder")]
    done = subprocess.run(
        wrap(cmd) if wrap else cmd,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    if stdout is not None:
        stdout.append(done.stdout)
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def _validate_results(results: dict) -> None:
    """Gradescope's documented results.json: the fields we write, with their types."""
    assert set(results) == {
        "score",
        "execution_time",
        "output",
        "visibility",
        "stdout_visibility",
        "tests",
    }
    assert results["visibility"] == "visible" and results["stdout_visibility"] == "hidden"
    assert isinstance(results["execution_time"], int) and isinstance(results["output"], str)
    ids = [ex.id for ex in REGISTRY.values() if ex.notebook == "02"]
    assert len(results["tests"]) == len(ids)
    for i, (test, ex_id) in enumerate(zip(results["tests"], ids), 1):
        assert set(test) == {
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "visibility",
            "extra_data",
        }
        assert test["name"].startswith(f"{ex_id}: ") and test["number"] == str(i)
        assert test["max_score"] == REGISTRY[ex_id].points
        assert test["score"] in (0, test["max_score"])
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed")
        assert isinstance(test["output"], str) and test["output"]
        assert test["visibility"] == "visible"
    assert results["score"] == sum(t["score"] for t in results["tests"])


def test_gradescope_run_autograder(tmp_path):
    bundle = tmp_path / "autograder_02.zip"
    assert main(["gradescope", "02", "--out", str(bundle)]) == 0
    root = tmp_path / "autograder"  # stands in for /autograder
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    shutil.copyfile(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope
    correct = write(
        exercises_only(load("02")), tmp_path / "correct" / "02_scaled_dot_product_attention.ipynb"
    )
    wrong = set_exercise(
        exercises_only(load("02")),
        "02.scaled_dot_product_attention",
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    scores = q @ k.transpose(-2, -1)\n"
        "    if mask is not None:\n"
        "        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    w = scores.softmax(-1)\n    return w @ v, w",
    )
    wrong = write(wrong, tmp_path / "wrong" / "02_scaled_dot_product_attention.ipynb")

    results = _run_autograder(root, correct, "02_scaled_dot_product_attention.ipynb")
    _validate_results(results)
    assert results["score"] == points("02")
    assert all(t["status"] == "passed" for t in results["tests"])

    results = _run_autograder(root, wrong, "my homework.ipynb")  # any upload name
    _validate_results(results)
    sdpa = results["tests"][
        [ex.id for ex in REGISTRY.values() if ex.notebook == "02"].index(
            "02.scaled_dot_product_attention"
        )
    ]
    assert sdpa["score"] == 0 and "sqrt(d_k)" in sdpa["output"]
    assert results["score"] == points("02") - REGISTRY["02.scaled_dot_product_attention"].points
    assert "my homework.ipynb" in results["output"]


SDPA_NO_SCALE = (
    "import torch\n\ndef scaled_dot_product_attention(q, k, v, mask=None):\n"
    "    s = q @ k.transpose(-2, -1)\n"
    "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
    "    w = s.softmax(-1)\n    return w @ v, w"
)
CAUSAL_TRIU = (
    "import torch\n\ndef causal_mask(T, device=None):\n"
    "    return torch.ones(T, T, dtype=torch.bool, device=device).triu()"
)


def test_graded_mistakes_reach_the_gradebook_and_the_report(tmp_path):
    """Real kernels, not generated rows: each named mistake's code is in the gradebook's
    ``mistake`` column and counted in the report (2 right, 3 without the scale, 1 triu)."""
    plan = [("ok", None, None)] * 2 + [
        ("noscale", "02.scaled_dot_product_attention", SDPA_NO_SCALE)
    ] * 3
    plan += [("triu", "02.causal_mask", CAUSAL_TRIU)]
    for i, (tag, exercise, source) in enumerate(plan):
        nb = exercises_only(load("02"))
        if exercise:
            set_exercise(nb, exercise, source)
        write(nb, tmp_path / "subs" / f"s{i}_{tag}" / "02_scaled_dot_product_attention.ipynb")
    gradebook, report = tmp_path / "grades.csv", tmp_path / "report.html"
    grade(str(tmp_path / "subs"), "--out", str(gradebook), "--report", str(report))
    with open(gradebook, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    mistakes = sorted(r["mistake"] for r in rows if r["mistake"])
    assert mistakes == ["02.causal_mask/triu"] + ["02.scaled_dot_product_attention/no_scale"] * 3
    assert all(r["status"] == "passed" for r in rows if r["submission"].startswith("s0_"))
    page = report.read_text(encoding="utf-8")
    assert "data-mistake='02.scaled_dot_product_attention/no_scale' data-count='3'" in page
    assert "data-mistake='02.causal_mask/triu' data-count='1'" in page
