"""The nbgrader course with the real nbgrader: generate_assignment, then autograde a correct and
a wrong submission of notebook 02; nbgrader's recorded scores must equal our grader's."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.__main__ import main
from helpers.grading import Settings, grade_batch

pytest.importorskip("nbgrader")
pytestmark = pytest.mark.slow

ASSIGNMENT = "02_scaled_dot_product_attention"
NO_SCALE = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"


def nbgrader(course: Path, *args: str) -> None:
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(course / ".jupyter"),
        # nbgrader runs `alembic` from PATH to set up its database
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


def test_nbgrader_scores_equal_ours(tmp_path):
    course = tmp_path / "course"
    assert main(["nbgrader", str(course), "02"]) == 0
    nbgrader(course, "generate_assignment", ASSIGNMENT)
    released = nbformat.read(str(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), 4)
    assert any("raise NotImplementedError()" in c.source for c in released.cells)
    assert not any("### BEGIN SOLUTION" in c.source for c in released.cells)

    # submissions: the instructor's version (correct) and one with the unscaled-scores mistake
    source = nbformat.read(str(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), 4)
    for student, replace in (("alice", None), ("bob", NO_SCALE)):
        nb = source
        if replace:
            nb = nbformat.from_dict(source)
            [cell] = [c for c in nb.cells if replace in c.source and "def scaled_dot" in c.source]
            cell.source = cell.source.replace(replace, "scores = q @ k.transpose(-2, -1)")
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{ASSIGNMENT}.ipynb"))
    nbgrader(course, "autograde", ASSIGNMENT, "--create")

    from nbgrader.api import Gradebook

    theirs = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in ("alice", "bob"):
            sub = gb.find_submission(ASSIGNMENT, student)
            grades = {g.name: g.score for nb in sub.notebooks for g in nb.grades}
            theirs[student] = (sub.score, sub.max_score, grades)

    result = grade_batch(
        [course / "submitted"],
        tmp_path / "grades.csv",
        progress=False,
        settings=Settings(seed=3, cell_timeout=60),
        log=lambda m: None,
    )
    ours = {}
    for r in result.rows:
        student = r.submission.split("/")[0]
        score, max_score, grades = ours.setdefault(student, (0.0, 0.0, {}))
        grades[f"test-{r.exercise.replace('.', '-')}"] = r.points
        ours[student] = (score + r.points, max_score + r.max_points, grades)
    assert theirs == ours
    assert theirs["alice"][0] == theirs["alice"][1]  # the correct one gets every point
    # the instructor's guide ends with nbgrader's own CSV: the same scores
    nbgrader(course, "export")
    with open(course / "grades.csv", newline="", encoding="utf-8") as f:
        exported = {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader(f)}
    assert exported == {s: theirs[s][0] for s in ("alice", "bob")}
    assert theirs["bob"][2]["test-02-scaled_dot_product_attention"] == 0  # the mistake costs
    assert theirs["bob"][0] > 0  # and only that exercise
