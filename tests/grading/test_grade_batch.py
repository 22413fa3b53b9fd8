"""The grading command end to end: one folder of crafted submissions, graded once with 2 jobs.

Submissions are made from the solved notebooks at test time: correct, partly wrong, hostile
(patched checks and torch, fake objects, files outside the folder, a forged results file) and
broken (invalid JSON, unknown notebooks, deleted and renamed exercises, an endless loop, a dead
kernel, megabytes of output, too much memory). Each test asserts that submission's exact rows.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import uuid
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.checks import REGISTRY
from helpers.grading import exercises_of, make_probes
from helpers.grading.reading.submissions import target_name

from ..speed import scaled
from .builders import (
    NOTEBOOKS,
    after_check,
    delete_exercise,
    exercise_index,
    insert,
    load,
    plain_notebook,
    set_exercise,
    write,
)

pytestmark = pytest.mark.slow

CELL_TIMEOUT = scaled(20)  # honest cells must finish within it, also on a busy machine
MARK = uuid.uuid4().hex[:8]
NOT_IMPLEMENTED = (
    "not implemented yet: fill in the TODO above, run that cell, then run this check again."
)
SEED = 11


def passed(ex_id: str) -> tuple:
    ex = REGISTRY[ex_id]
    return (
        ex_id,
        f"{ex.points:g}",
        f"{ex.points:g}",
        "passed",
        getattr(ex, "explanation", "") or f"passed {len(make_probes(ex, SEED))} cases",
    )  # a question says why its answer is right


def rows(number: str, *changed: tuple, default=None) -> list[tuple]:
    """The rows of every exercise of notebook ``number``, in the grader's order: a row of
    ``changed`` where it names the exercise, else ``default(ex)`` (default: passed). The rows
    follow the notebook's exercises as they grow (notebook 00 also has a stretch and a question)."""
    by_id = {row[0]: row for row in changed}
    default = default or (lambda ex: passed(ex.id))
    return [by_id.get(ex.id) or default(ex) for ex in exercises_of(number)]


def cut_at(nb, n: int, status: str, words: str):
    """``default`` for :func:`rows`: an exercise defined before cell ``n`` (1-based) passes; one
    defined after is not graded, with the grader's message: "not graded: <words> before `name` was
    defined."."""

    def row(ex):
        if exercise_index(nb, ex.id) < n - 1:
            return passed(ex.id)
        why = f"not graded: {words} before `{target_name(ex)}` was defined."
        return (ex.id, "0", f"{ex.points:g}", status, why)

    return row


RELU_PASSED = rows("00")
NB01_PASSED = rows("01")

PATCHES = """
import helpers, helpers.checks, helpers.checks.run.runner, helpers.checks.run.calling
import helpers.checks.framework
import torch, torch.testing
from helpers.checks.framework import CheckResult

def fake_check(exercise_id, candidate, **kwargs):
    print(f"✅ {exercise_id}: passed all cases [1/1 points]")
    return CheckResult(exercise_id, True, 1.0, 1.0, ["passed"])

helpers.check = helpers.checks.check = check = fake_check
helpers.checks.evaluate = lambda ex, pairs: fake_check(ex.id, None)
helpers.checks.run.runner.run_probe = lambda *a, **k: None
helpers.checks.framework.expect_close = lambda *a, **k: None
helpers.checks.run.calling.plain = lambda x, depth=0: x
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *args, **k: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
result = check("00.relu", relu)
"""

FORGED_RESULTS = """
import pickle, torch

class Evil:
    def __reduce__(self):
        return (print, ("the grader ran my code",))

def fake_save(obj, f, *args, **kwargs):
    with open(f, "wb") as fh:
        pickle.dump(Evil(), fh)

torch.save = fake_save
"""

ESCAPE = f"""
import os, pathlib
pathlib.Path(os.path.expanduser("~/escape_home_{MARK}.txt")).write_text("x")
pathlib.Path("escape_cwd_{MARK}.txt").write_text("x")
pathlib.Path(os.environ.get("TMPDIR", "/tmp"), "escape_tmp_{MARK}.txt").write_text("x")
"""


def build(folder: Path) -> dict[str, list[tuple]]:
    """Write the submissions; return {label: expected rows}, each row
    (exercise, points, max, status, message)."""
    expected: dict[str, list[tuple]] = {}

    def add(label, nb, rows, notebook=None):
        write(nb, folder / label)
        number = notebook if notebook is not None else label.rsplit("/", 1)[-1][:2]
        # a row: (exercise, points, max_points, status, message[, mistake code])
        expected[label] = [
            (number, *row[:4], row[5] if len(row) > 5 else "", row[4]) for row in rows
        ]

    add("00_correct.ipynb", load("00"), RELU_PASSED)
    add("alice/01_dot_product_attention.ipynb", load("01"), NB01_PASSED)

    nb = set_exercise(
        load("01"),
        "01.softmax",
        "def softmax(x, dim=-1):\n    e = x.exp()\n    return e / e.sum(dim=dim, keepdim=True)",
    )
    add(
        "01_partly_wrong.ipynb",
        nb,
        rows(
            "01",
            (
                "01.softmax",
                "0",
                "2",
                "failed",
                "case x = [1000, 1001, 999] (large values): the output "
                "has NaN or inf: exp(1000) overflows. Subtract the max along `dim` "
                "(keepdim=True) before exponentiating; softmax does not change.",
                "01.softmax/no_shift",
            ),
        ),
    )

    nb = set_exercise(load("00"), "00.relu", "def relu(x):\n    return x.abs()")
    insert(nb, after_check(nb, "00.relu"), PATCHES)
    add(
        "00_wrong_and_patched.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "failed",
                "case x = [-2, -0.5, 0, 1.5]: you returned |x|: negative "
                "inputs must become 0, not positive.",
                "00.relu/abs",
            ),
        ),
    )

    nb = set_exercise(
        load("00"),
        "00.relu",
        "class AlwaysEqual:\n"
        "    def __eq__(self, other):\n        return True\n\n"
        "def relu(x):\n    return AlwaysEqual()",
    )
    add(
        "00_always_equal.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "failed",
                "case x = [-2, -0.5, 0, 1.5]: the output should be a "
                "torch.Tensor, got __main__.AlwaysEqual.",
                "00.relu/not_a_tensor",
            ),
        ),
    )

    nb = set_exercise(
        load("00"),
        "00.relu",
        "class Sneaky(torch.Tensor):\n    pass\n\n"
        "def relu(x):\n    return torch.where(x > 0, x, 0 * x).as_subclass(Sneaky)",
    )
    add(
        "00_tensor_subclass.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "failed",
                "case x = [-2, -0.5, 0, 1.5]: the output should be a "
                "torch.Tensor, got a tensor subclass (Sneaky).",
                "00.relu/not_a_tensor",
            ),
        ),
    )

    nb = load("00")
    nb.cells[exercise_index(nb, "00.relu")].source = "def my_relu(x):\n    return x * (x > 0)"
    nb.cells[exercise_index(nb, "00.relu") + 1].source = 'result = check("00.relu", my_relu)'
    add(
        "00_renamed.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "missing",
                "`relu` is not defined in the notebook (is its exercise "
                "cell deleted, or the function renamed?).",
            ),
        ),
    )

    add(
        "01_cell_deleted.ipynb",
        delete_exercise(load("01"), "01.dot_product_attention"),
        rows(
            "01",
            (
                "01.dot_product_attention",
                "0",
                "2",
                "missing",
                "`dot_product_attention` is not defined in "
                "the notebook (is its exercise cell deleted, or the function renamed?).",
            ),
        ),
    )

    nb = load("01")
    n = insert(nb, after_check(nb, "01.softmax"), "while True:\n    pass")
    add(
        "01_endless_loop.ipynb",
        nb,
        rows(
            "01",
            default=cut_at(
                nb, n, "timeout", f"cell {n} ran over the time limit of {CELL_TIMEOUT} s per cell"
            ),
        ),  # fmt: skip
    )

    nb = load("01")
    n = insert(nb, after_check(nb, "01.softmax"), "import os\nos._exit(1)")
    add(
        "01_kills_kernel.ipynb",
        nb,
        rows(
            "01",
            default=cut_at(
                nb, n, "error", f"the kernel died in cell {n} (os._exit, a crash, or out of memory)"
            ),
        ),  # fmt: skip
    )

    nb = load("00")
    insert(nb, 4, 'for i in range(100):\n    print("spam " * 10_000)')
    add("00_prints_megabytes.ipynb", nb, RELU_PASSED)

    nb = load("00")  # one 200 MB message: dropped on arrival (MAX_MESSAGE_BYTES), never parsed
    insert(nb, 4, 'print("x" * 200_000_000)\nprint("after it")')
    add("00_prints_one_huge_line.ipynb", nb, RELU_PASSED)

    nb = load("00")
    insert(
        nb,
        4,
        "def eat():\n    hog = []\n    while True:\n        hog.append(bytearray(2**28))\n\neat()",
    )
    add("00_eats_memory.ipynb", nb, RELU_PASSED)

    nb = load("00")  # 10 GB in one tensor: refused by the memory limit, in this submission only
    insert(nb, 4, "import torch\nhuge = torch.empty(10 * 2**30, dtype=torch.uint8)")
    add("00_allocates_10gb.ipynb", nb, RELU_PASSED)

    nb = load("00")
    insert(nb, 4, ESCAPE)
    add("00_writes_files.ipynb", nb, RELU_PASSED)

    nb = load("00")
    insert(nb, after_check(nb, "00.relu"), FORGED_RESULTS)
    add(
        "00_forged_results.ipynb",
        nb,
        rows(  # torch.save is forged for every exercise the kernel runs after it
            "00",
            default=lambda ex: (
                ex.id,
                "0",
                f"{ex.points:g}",
                "error",
                "not graded: the results file is not plain data (UnpicklingError).",
            ),
        ),
    )

    nb = set_exercise(load("00"), "00.relu", "import os\n\ndef relu(x):\n    os._exit(1)")
    del nb.cells[exercise_index(nb, "00.relu") + 1]  # its check cell, which would end the run
    add(
        "00_dies_when_called.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "error",
                "the kernel died while running `relu` on the grader's inputs.",
            ),
        ),
    )

    nb = set_exercise(
        load("02"), "02.causal_mask", "from helpers.blocks.attention import causal_mask"
    )
    copied = (  # the notebook's own reference is not in a grading kernel (kernel_view.py)
        "02.causal_mask",
        "0",
        "1",
        "error",
        f"`causal_mask` is not defined: its cell (cell {exercise_index(nb, '02.causal_mask') + 1}) "
        "raised ModuleNotFoundError: No module named 'helpers.blocks.attention'",
    )
    add(
        "02_imports_the_reference.ipynb",
        nb,
        [copied if ex.id == "02.causal_mask" else passed(ex.id) for ex in exercises_of("02")],
    )

    add("00_actually_01.ipynb", load("01"), NB01_PASSED, notebook="01")
    add(
        "01_untouched_student.ipynb",
        load("01", NOTEBOOKS),
        rows("01", default=lambda ex: (ex.id, "0", f"{ex.points:g}", "missing", NOT_IMPLEMENTED)),
    )

    nb = set_exercise(load("00"), "00.relu", "def relu(x):\n    return x +* 1")
    n = exercise_index(nb, "00.relu") + 1
    add(
        "00_syntax_error.ipynb",
        nb,
        rows(
            "00",
            (
                "00.relu",
                "0",
                "1",
                "error",
                f"`relu` is not defined: its cell (cell {n}) raised SyntaxError: invalid syntax",
            ),
        ),
    )  # followed by IPython's file name: compared as a prefix

    add(
        "homework.ipynb",
        plain_notebook("x = 1"),
        notebook="",
        rows=[
            (
                "",
                "0",
                "0",
                "error",
                "cannot tell which notebook of the series this is: no "
                "metadata.course.notebook and the file name does not start with NN_.",
            )
        ],
    )
    add(
        "42_future.ipynb",
        plain_notebook("x = 1", notebook="42"),
        [
            (
                "",
                "0",
                "0",
                "error",
                "notebook 42 has no graded exercises (not a notebook of this series?).",
            )
        ],
    )
    (folder / "99_broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    expected["99_broken.ipynb"] = [
        (
            "99",
            "",
            "0",
            "0",
            "error",
            "",
            "not a notebook: the file is not valid JSON "
            "(Expecting value: line 1 column 12 (char 11)).",
        )
    ]
    return expected


@pytest.fixture(scope="module")
def graded(tmp_path_factory, grade_device):
    root = tmp_path_factory.mktemp("grading")
    subs = root / "submissions"
    expected = build(subs)
    notes = root / "notes.txt"
    notes.write_text("not a notebook\n", encoding="utf-8")
    expected["notes.txt"] = [  # a file given alone: its name (never the instructor's path)
        (
            "",
            "",
            "0",
            "0",
            "error",
            "",
            "not a notebook: the file is not valid "
            "JSON (Expecting value: line 1 column 1 (char 0)).",
        )
    ]
    out, feedback = root / "grades.csv", root / "feedback"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(
            [
                "grade",
                str(subs),
                str(notes),
                "--out",
                str(out),
                "--feedback",
                str(feedback),
                "--jobs",
                "2",
                "--timeout",
                str(CELL_TIMEOUT),
                "--seed",
                str(SEED),
                "--memory",
                "3",
                "--device",
                grade_device,
                "--no-progress",
            ]
        )
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return {
        "code": code,
        "rows": rows,
        "expected": expected,
        "stdout": stdout.getvalue(),
        "feedback": feedback,
        "subs": subs,
    }


def rows_of(graded, label):
    return [tuple(r[1:]) for r in graded["rows"][1:] if r[0] == label]


def test_exit_status_header_and_every_submission(graded):
    assert graded["code"] == 0
    assert graded["rows"][0] == [
        "submission",
        "notebook",
        "exercise",
        "points",
        "max_points",
        "status",
        "mistake",
        "message",
    ]
    assert {r[0] for r in graded["rows"][1:]} == set(graded["expected"])


LABELS = [
    "00_correct.ipynb",
    "alice/01_dot_product_attention.ipynb",
    "01_partly_wrong.ipynb",
    "00_wrong_and_patched.ipynb",
    "00_always_equal.ipynb",
    "00_tensor_subclass.ipynb",
    "00_renamed.ipynb",
    "01_cell_deleted.ipynb",
    "01_endless_loop.ipynb",
    "01_kills_kernel.ipynb",
    "00_prints_megabytes.ipynb",
    "00_prints_one_huge_line.ipynb",
    "00_eats_memory.ipynb",
    "00_allocates_10gb.ipynb",
    "00_writes_files.ipynb",
    "00_forged_results.ipynb",
    "00_actually_01.ipynb",
    "01_untouched_student.ipynb",
    "homework.ipynb",
    "42_future.ipynb",
    "99_broken.ipynb",
    "00_dies_when_called.ipynb",
    "02_imports_the_reference.ipynb",
]


@pytest.mark.parametrize("label", LABELS)
def test_rows(graded, label):
    assert rows_of(graded, label) == graded["expected"][label]


def test_syntax_error_row(graded):
    label = "00_syntax_error.ipynb"
    got, want = rows_of(graded, label), graded["expected"][label]
    assert len(got) == len(want)
    for row, expect in zip(got, want):  # the message followed by IPython's file name: a prefix
        assert row[:6] == expect[:6] and row[6].startswith(expect[6]), row


def test_not_a_notebook_file(graded):
    label = next(k for k in graded["expected"] if k.endswith("notes.txt"))
    assert rows_of(graded, label) == graded["expected"][label]


def test_files_written_by_a_submission_stay_in_its_folder(graded):
    assert not (Path.home() / f"escape_home_{MARK}.txt").exists()
    assert not list(graded["subs"].rglob(f"escape_*_{MARK}.txt"))
    assert not (Path(os.environ.get("TMPDIR", "/tmp")) / f"escape_tmp_{MARK}.txt").exists()
    assert not (Path.cwd() / f"escape_cwd_{MARK}.txt").exists()


def test_feedback_files(graded):
    fb = graded["feedback"]
    names = sorted(p.name for p in fb.glob("*.md"))
    assert "alice__01_dot_product_attention.md" in names and "00_correct.md" in names
    assert len(names) == len(graded["expected"])
    text = (fb / "01_partly_wrong.md").read_text(encoding="utf-8")
    total = sum(ex.points for ex in exercises_of("01"))
    lost = REGISTRY["01.softmax"].points
    assert f"{total - lost:g} / {total:g} points" in text and "exp(1000) overflows" in text
    assert "| 01.softmax | ❌ failed | 0 / 2 |" in text
    loop = (fb / "01_endless_loop.md").read_text(encoding="utf-8")
    assert "ran over the time limit" in loop
    memory = (fb / "00_eats_memory.md").read_text(encoding="utf-8")
    assert "raised MemoryError" in memory
    huge = (fb / "00_allocates_10gb.md").read_text(encoding="utf-8")
    assert "cell 5 raised RuntimeError" in huge and "can't allocate memory" in huge
    not_kept = sorted(
        p.name for p in fb.glob("*.md") if "output was not kept" in p.read_text(encoding="utf-8")
    )
    assert not_kept == ["00_prints_megabytes.md", "00_prints_one_huge_line.md"]
    # kernels were forked from the preloaded zygote, none fell back to a process of its own
    notes = {
        p.name: line
        for p in fb.glob("*.md")
        for line in p.read_text(encoding="utf-8").splitlines()
        if "(grader)" in line
    }
    assert not notes


def test_summary_on_stdout(graded):
    out = graded["stdout"]
    assert f"graded {len(graded['expected'])} submissions" in out
    assert "notebook  submissions  mean score" in out
    line01 = next(line for line in out.splitlines() if line.startswith("01 "))
    assert line01.split()[1] == "7"  # submissions of notebook 01


def test_without_preload_each_kernel_is_a_new_process(tmp_path, grade_device):
    nb = set_exercise(load("00"), "00.relu", "def relu(x):\n    return x.abs()")
    insert(nb, after_check(nb, "00.relu"), PATCHES)
    write(nb, tmp_path / "00_wrong_and_patched.ipynb")
    out = tmp_path / "g.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(
            [
                "grade",
                str(tmp_path / "00_wrong_and_patched.ipynb"),
                "--out",
                str(out),
                "--no-preload",
                "--seed",
                str(SEED),
                "--memory",
                "3",
                "--device",
                grade_device,
                "--no-progress",
            ]
        )
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert code == 0
    assert [r[2:] for r in rows if r[2] == "00.relu"][0] == [
        "00.relu",
        "0",
        "1",
        "failed",
        "00.relu/abs",
        "case x = [-2, -0.5, 0, 1.5]: you returned "
        "|x|: negative inputs must become 0, not positive.",
    ]


@pytest.mark.parametrize("total", [0.3, 6])
def test_whole_notebook_time_limit(tmp_path, grade_device, total):
    """6 s: in the cell that sleeps, or earlier on a busy machine; 0.3 s: in the first cells'
    `import torch` (a kernel of its own imports it cold), which once left a half-imported torch
    that the grader's setup then failed in ("could not set up in the kernel")."""
    from helpers.grading import Settings, Submission, grade_submission

    nb = load("00")
    sleep = exercise_index(nb, "00.relu")
    insert(nb, sleep, "import time\ntime.sleep(60)")
    path = write(nb, tmp_path / "00_slow.ipynb")
    settings = Settings(cell_timeout=30, total_timeout=total, seed=SEED, device=grade_device)
    graded = grade_submission(Submission(path, "00_slow.ipynb"), settings)
    got = {r.exercise: (r.status, r.message) for r in graded.rows}
    assert list(got) == [ex.id for ex in exercises_of("00")]
    for ex in exercises_of("00"):
        timeout = (
            "timeout",
            f"not graded: the notebook ran over its time limit of {total:g} s before "
            f"`{target_name(ex)}` was defined.",
        )
        # an exercise defined before the cell that sleeps may have run in time (not at 0.3 s)
        before = exercise_index(nb, ex.id) < sleep and total > 1
        assert got[ex.id] == timeout or before and got[ex.id][0] == "passed", (ex.id, got)
