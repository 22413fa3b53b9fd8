"""The instructor's workflow without kernels: shards, student names, zips, totals, merge, report,
the nbgrader notebook's cell metadata and the Gradescope bundle's contents."""

from __future__ import annotations

import csv
import re
import zipfile
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from helpers.__main__ import main
from helpers.grading import exercises_of
from helpers.grading.books.gradebook import GradebookError, read_rows
from helpers.grading.books.lms import compute_totals, write_totals
from helpers.grading.books.report import summarize, write_report
from helpers.grading.books.shard import merge, parse_shard, shard_of
from helpers.grading.reading.archives import ArchiveError, expanded
from helpers.grading.reading.students import Student, compile_pattern, student_of
from helpers.grading.reading.submissions import copy_siblings, find_submissions

from . import classbook
from .builders import SOLUTIONS, exercise_index
from .classbook import COLUMNS as HEADER

# --------------------------------------------------------------------------- shards


@pytest.mark.parametrize("text,expected", [("1/3", (1, 3)), (" 3 / 3 ", (3, 3)), ("1/1", (1, 1))])
def test_parse_shard(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", ""])
def test_parse_shard_rejects(text):
    with pytest.raises(ValueError):
        parse_shard(text)


def test_shards_partition_evenly_and_stably():
    labels = [f"s{i}/02_x.ipynb" for i in range(3000)]
    shards = [shard_of(lb, 4) for lb in labels]
    assert set(shards) == {1, 2, 3, 4}
    assert all(600 < n < 900 for n in Counter(shards).values())  # about 750 each
    # sha256 of the label: the same on every machine and every run (no salted hash())
    assert [shard_of(lb, 4) for lb in labels] == shards
    assert (
        shard_of("alice/02_x.ipynb", 7)
        == 1
        + int.from_bytes(__import__("hashlib").sha256(b"alice/02_x.ipynb").digest()[:8], "big") % 7
    )


def _book(path: Path, rows: list[list[str]], header=HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([header, *rows])
    return path


def test_merge_sorts_like_one_run_and_refuses_overlaps(tmp_path):
    a = _book(
        tmp_path / "a.csv",
        [
            ["b.ipynb", "02", "02.padding_mask", "1", "1", "passed", "", "ok"],
            ["b.ipynb", "02", "02.causal_mask", "0", "1", "failed", "", "x"],
        ],
    )
    b = _book(tmp_path / "b.csv", [["a.ipynb", "00", "00.relu", "1", "1", "passed", "", "ok"]])
    assert merge(tmp_path / "m.csv", [a, b]) == 3
    got = [(r.submission, r.exercise) for r in read_rows(tmp_path / "m.csv")]
    # registry order puts 02.causal_mask before 02.padding_mask
    assert got == [
        ("a.ipynb", "00.relu"),
        ("b.ipynb", "02.causal_mask"),
        ("b.ipynb", "02.padding_mask"),
    ]
    with pytest.raises(GradebookError, match="b.ipynb"):
        merge(tmp_path / "m2.csv", [a, b, a])
    old = _book(
        tmp_path / "old.csv",
        [["c.ipynb", "00", "00.relu", "1", "1", "passed", "ok"]],
        header=HEADER[:6] + ["message"],
    )
    with pytest.raises(GradebookError, match="columns"):
        merge(tmp_path / "m3.csv", [a, old])
    assert read_rows(old)[0].mistake == ""  # a gradebook without the mistake column reads fine


def test_merge_command_exit_status(tmp_path, capsys):
    assert main(["grade", "merge", str(tmp_path / "m.csv"), str(tmp_path / "missing.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err


# --------------------------------------------------------------------------- students


@pytest.mark.parametrize(
    "label,student",
    [
        (
            "smithjohn_12345_67890_02_scaled_dot_product_attention.ipynb",
            Student("smithjohn", "12345"),
        ),
        (
            "smithjohn_LATE_12345_67890_02_scaled_dot_product_attention-1.ipynb",
            Student("smithjohn", "12345", late=True),
        ),
        (
            "Ann Lee_345678_assignsubmission_file_/02_scaled_dot_product_attention.ipynb",
            Student("Ann Lee", "345678"),
        ),
        (
            "Ann Lee_345678_assignsubmission_file_02_scaled_dot_product_attention.ipynb",
            Student("Ann Lee", "345678"),
        ),
        ("alice/02_scaled_dot_product_attention.ipynb", Student("alice")),
        (
            "alice/02_scaled_dot_product_attention/02_scaled_dot_product_attention.ipynb",
            Student("alice"),
        ),
        ("02_scaled_dot_product_attention.ipynb", Student("02_scaled_dot_product_attention")),
    ],
)
def test_student_of_lms_names(label, student):
    assert student_of(label) == student


def test_student_pattern_overrides():
    pattern = compile_pattern(r"^(?P<student>[a-z]+)-hw")
    assert student_of("bob-hw2/02_x.ipynb", pattern) == Student("bob")
    with pytest.raises(ValueError, match="student"):
        compile_pattern(r"(?P<name>\w+)")
    with pytest.raises(ValueError, match="regular expression"):
        compile_pattern(r"(?P<student>")


@pytest.mark.parametrize(
    ("notebook", "copied"),
    [  # Canvas and Moodle put every student's files in one folder: only the owner's are copied
        ("alicejones_11_21_02_attention.ipynb", ["data.csv"]),  # alicejones_11_22_data.csv
        ("bobsmith_LATE_12_23_02_attention.ipynb", ["data.csv"]),  # bobsmith_12_24_data.csv
        # her notes are not declared; the shared data.csv is
        ("Ann Lee_345_assignsubmission_file_02_attention.ipynb", ["data.csv"]),
        ("02_attention.ipynb", ["data.csv"]),  # a notebook whose name gives no student
    ],
)
def test_only_the_files_the_course_declares_are_copied(tmp_path, notebook, copied):
    """Issue 31: the instructor's gradebook and resume file (--out inside the graded folder),
    a classmate's files and anything undeclared never reach a kernel's work folder."""
    src, dest = tmp_path / "src", tmp_path / "dest"
    src.mkdir()
    dest.mkdir()
    files = [
        "alicejones_11_21_02_attention.ipynb",
        "alicejones_11_22_data.csv",
        "bobsmith_LATE_12_23_02_attention.ipynb",
        "bobsmith_12_24_data.csv",
        "Ann Lee_345_assignsubmission_file_02_attention.ipynb",
        "Ann Lee_345_assignsubmission_file_notes.txt",
        "02_attention.ipynb",
        "grades.csv",
        "grades.csv.json",
        "weather_2024_01_data.csv",  # a Canvas-like name that is data, not a student's
        "data.csv",
    ]
    for name in files:
        (src / name).write_text(name)
    copy_siblings(src / notebook, dest, declared=("data.csv",))
    assert sorted(p.name for p in dest.iterdir()) == copied
    owner = notebook.split("_")[0]
    own = owner if owner in ("alicejones", "bobsmith") else "data.csv"
    for path in dest.iterdir():  # the owner's own copy, never a classmate's
        assert path.read_text().startswith(own)
    copy_siblings(src / notebook, tmp_path / "none")  # the course declares no file today
    assert not (tmp_path / "none").exists() or not any((tmp_path / "none").iterdir())


def test_totals_one_row_per_student(tmp_path):
    canvas = "smithjohn_12345_67890_"
    rows = [
        [f"{canvas}00_welcome.ipynb", "00", "00.relu", "1", "1", "passed", "", ""],
        [
            f"{canvas}02_sdpa.ipynb",
            "02",
            "02.scaled_dot_product_attention",
            "0",
            "3",
            "failed",
            "",
            "",
        ],
        [f"{canvas}02_sdpa.ipynb", "02", "02.causal_mask", "1", "1", "passed", "", ""],
        [
            "doejane_LATE_23456_78901_02_sdpa.ipynb",
            "02",
            "02.causal_mask",
            "1",
            "1",
            "passed",
            "",
            "",
        ],
        ["doejane_23456_78902_02_sdpa-1.ipynb", "02", "02.causal_mask", "0", "1", "failed", "", ""],
        ["stray.ipynb", "", "", "0", "0", "error", "", "not a notebook"],
    ]
    totals = compute_totals(read_rows(_book(tmp_path / "g.csv", rows)))
    write_totals(tmp_path / "t.csv", totals)
    with open(tmp_path / "t.csv", newline="", encoding="utf-8") as f:
        got = list(csv.DictReader(f))
    assert [r["student"] for r in got] == ["doejane", "smithjohn", "stray"]
    assert got[0] == {
        "student": "doejane",
        "id": "23456",
        "00": "0",
        "02": "0",
        "total": "0",
        "late": "",
    }  # the latest of two submissions of 02 (Canvas's file 78902, on time), as LMSs count
    best = compute_totals(read_rows(tmp_path / "g.csv"), policy="best")
    assert best.students[Student("doejane", "23456")]["02"].points == 1
    assert best.late(Student("doejane", "23456")) == ["02"]
    assert got[1] == {
        "student": "smithjohn",
        "id": "12345",
        "00": "1",
        "02": "1",
        "total": "2",
        "late": "",
    }
    assert totals.unattributed == ["stray.ipynb"] and len(totals.duplicates) == 1
    assert totals.max_points == {"00": 1.0, "02": 4.0}


# --------------------------------------------------------------------------- zips


def test_zip_expands_and_refuses_unsafe_members(tmp_path):
    good = tmp_path / "canvas.zip"
    with zipfile.ZipFile(good, "w") as z:
        z.writestr("a_1_2_02_x.ipynb", "{}")
        z.writestr("__MACOSX/._a_1_2_02_x.ipynb", "junk")
    with expanded([str(good), "other"]) as paths:
        folder = Path(paths[0])
        assert paths[1] == "other"
        assert [p.name for p in folder.rglob("*") if p.is_file()] == ["a_1_2_02_x.ipynb"]
    assert not folder.exists()
    bad = tmp_path / "evil.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("../escape.ipynb", "{}")
        z.writestr("/abs.ipynb", "{}")
        z.writestr("ok.ipynb", "{}")
    with expanded([str(bad)]) as paths:  # refused, each as its own row (issue 42): not the batch
        subs = find_submissions(paths)
        assert [(s.label, s.problem) for s in subs] == [
            ("../escape.ipynb", "its path leaves its folder, or a link."),
            ("/abs.ipynb", "its path leaves its folder, or a link."),
            ("ok.ipynb", None),
        ]
    assert not (tmp_path / "escape.ipynb").exists()
    (tmp_path / "not.zip").write_text("no")
    with pytest.raises(ArchiveError, match="not a zip"), expanded([str(tmp_path / "not.zip")]):
        pass


# --------------------------------------------------------------------------- report


def test_report_counts_of_a_generated_class(tmp_path):
    book = classbook.write(tmp_path / "grades.csv")
    out = tmp_path / "report.html"
    summary = write_report(out, read_rows(book))
    page = out.read_text(encoding="utf-8")
    assert summary.submissions == classbook.N_SUBMISSIONS
    for exercise, outcomes in classbook.SPEC.items():
        passed = sum(n for n, status, _ in outcomes if status == "passed")
        assert f"data-exercise='{exercise}' data-passed='{passed}' data-total='30'" in page
        named = Counter()
        for n, _status, what in outcomes:
            if isinstance(what, tuple):
                named[what[0]] += n
        assert dict(summary.exercises[exercise].mistakes) == dict(named)
        for code, n in named.items():
            assert f"data-mistake='{code}' data-count='{n}'" in page
    # the most frequent mistake first, with the message students saw
    top = summary.exercises[classbook.SDPA].top_mistakes()
    assert [(c, n) for c, n, _ in top] == [(classbook.NO_SCALE[0], 8), (classbook.WRONG_AXIS[0], 4)]
    assert top[0][2] == classbook.NO_SCALE[1]
    assert "divide q @ kᵀ by sqrt(d_k)" in page
    assert (
        page.count("<tr data-status='error'>") == 2
        and page.count("<tr data-status='timeout'>") == 1
    )
    assert sorted(summary.scores["02"]) == classbook.expected_scores()
    # self-contained: every image is embedded, nothing is fetched
    srcs = re.findall(r"""src=['"]([^'"]*)""", page)
    assert len(srcs) == 2 and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "http://" not in page and "https://" not in page and "<link" not in page


def test_report_of_an_empty_or_all_passed_class(tmp_path):
    book = _book(tmp_path / "g.csv", [["a.ipynb", "00", "00.relu", "1", "1", "passed", "", "ok"]])
    summary = summarize(read_rows(book))
    assert summary.exercises["00.relu"].pass_rate == 1.0 and not summary.problems


# --------------------------------------------------------------------------- exports


def test_nbgrader_takes_a_notebook_number_with_a_letter(tmp_path):
    """07b sits between 07 and 08: "7b" names it, and "7" does not (issue 30)."""
    from helpers.grading.books.nbgrader import write_course

    [path] = write_course(tmp_path / "a", ["7b"])
    assert path.name == "07b_language_model.ipynb"
    assert [p.name for p in write_course(tmp_path / "b", ["7"])] == ["07_decoder_seq2seq.ipynb"]
    cells = nbformat.read(str(path), as_version=4).cells
    grade_ids = [c.metadata.get("nbgrader", {}).get("grade_id", "") for c in cells]
    assert "test-07b-top_p_filter" in grade_ids


def test_nbgrader_notebook_metadata(tmp_path):
    from helpers.grading.books.nbgrader import write_course

    [path] = write_course(tmp_path, ["2"])
    assert path == tmp_path / "source" / "02_scaled_dot_product_attention" / path.name
    assert (tmp_path / "nbgrader_config.py").is_file()
    nb = nbformat.read(str(path), as_version=4)
    meta = [c.metadata.get("nbgrader") for c in nb.cells]
    tests = [
        (m["grade_id"], m["points"], c.source) for c, m in zip(nb.cells, meta) if m and m["grade"]
    ]
    solution = nbformat.read(str(next(SOLUTIONS.glob("02_*.ipynb"))), as_version=4)
    # one test cell per exercise, in the notebook's order (its first exercise is a question)
    exercises = sorted(exercises_of("02"), key=lambda ex: exercise_index(solution, ex.id))
    assert [(g, p) for g, p, _ in tests] == [
        (f"test-{ex.id.replace('.', '-')}", float(ex.points)) for ex in exercises
    ]
    for (_, _, source), ex in zip(tests, exercises):
        assert f"_check({ex.id!r}, {ex.id.split('.')[1]}, seed=_secrets.randbelow" in source
        assert "assert _result.passed" in source
    for cell, m in zip(nb.cells, meta):
        if "### BEGIN SOLUTION" in cell.source:
            assert m["solution"] and not m["locked"]
        elif cell.cell_type == "markdown":
            assert m["locked"] and not m["solution"]
        if cell.cell_type == "code":
            assert not cell.outputs
    assert len(nb.cells) == len(solution.cells) + len(exercises)
    assert main(["nbgrader", str(tmp_path), "99"]) == 2


def test_gradescope_bundle_contents(tmp_path):
    out = tmp_path / "ag.zip"
    assert main(["gradescope", "02", "--out", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        run = z.read("run_autograder").decode()
        reqs = z.read("requirements-autograder.txt").decode().split()
        mode = z.getinfo("run_autograder").external_attr >> 16
    assert {
        "setup.sh",
        "run_autograder",
        "helpers/__init__.py",
        "helpers/grading/run.py",
        "helpers/checks/exercises/02/scaled_dot_product_attention.py",
    } <= names
    assert not any("__pycache__" in n for n in names)
    assert mode & 0o111 and "--notebook 02" in run and "AUTOGRADER_ROOT:-/autograder" in run
    assert "torch>=2.3" in reqs and not any(
        r.startswith(("pytest", "nbgrader", "-e")) for r in reqs
    )
    assert main(["gradescope", "99", "--out", str(tmp_path / "x.zip")]) == 2
    assert main(["gradescope", "7b", "--out", str(tmp_path / "b.zip")]) == 0  # 07b, and its text
    with zipfile.ZipFile(tmp_path / "b.zip") as z:
        assert "--notebook 07b" in z.read("run_autograder").decode()
        assert "helpers/course_text.txt" in z.namelist()
