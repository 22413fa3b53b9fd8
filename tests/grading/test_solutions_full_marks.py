"""The solved notebooks 00-09, graded as an instructor grades (default limits, sandbox, 2 jobs),
get full marks: on every torch build CI installs (.ci/run), and on a GPU with GRADE_DEVICE. The
time limits are the defaults times the machine's slowdown (tests/speed.py): a busy machine slows
the cells and the limit alike, as it would an instructor's."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from helpers.checks import REGISTRY
from helpers.grading.limits import OPTIONS
from helpers.notebook_files import solution_paths

from ..speed import scaled
from .builders import ROOT

pytestmark = pytest.mark.slow


def test_every_exercise_of_every_solved_notebook_gets_full_points(tmp_path, grade_device):
    out = tmp_path / "grades.csv"
    # the solved notebooks themselves (the folder also holds solutions/open/, worked solutions of
    # the open exercises, which are no submission)
    cmd = [sys.executable, "-m", "helpers", "grade", *map(str, solution_paths()), "--out", str(out)]
    cmd += ["--jobs", "2", "--device", grade_device, "--no-progress"]
    for flag in ("--timeout", "--notebook-timeout"):  # the defaults, times the slowdown
        cmd += [flag, str(scaled(OPTIONS[flag][1]))]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=scaled(1200))
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len({r["submission"] for r in rows}) == len(solution_paths())
    assert sorted(r["exercise"] for r in rows) == sorted(REGISTRY)
    lost = [r for r in rows if r["status"] != "passed" or r["points"] != r["max_points"]]
    assert lost == [], "\n".join(f"{r['exercise']}: {r['status']}: {r['message']}" for r in lost)
