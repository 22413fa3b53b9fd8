"""Faults injected at named points (helpers/grading/kernels/faults.py): exact rows, with and
without the sandbox, kernels started as processes of their own (a cold ``import torch``) and
forked from the zygote of a batch.

Whatever strikes (the grader's interrupt or a kill, in the notebook's imports, in the grader's
own setup, in a probe, while the results are written), the rows say what really happened to the
learner's code, and the grader's own code runs only in a sound kernel: never "could not set up".
The CUDA build is not covered here (this machine has none; `make test-gpu` runs these tests on
one with GRADE_DEVICE=cuda).
"""

from __future__ import annotations

import csv
import os

import pytest

from helpers.checks import REGISTRY
from helpers.grading import Settings, Submission, exercises_of, grade_submission, make_probes
from helpers.grading.kernels import faults, sandbox
from helpers.grading.reading.submissions import target_name

from ..speed import scaled
from .builders import exercise_index, load, plain_notebook, write

pytestmark = pytest.mark.slow

SEED = 5
CELL_TIMEOUT = 60
SANDBOXES = ["none"] + (["bwrap"] if sandbox.resolve("auto")[0] == "bwrap" else [])
if os.environ.get("CI_ENV_SUITE") == "1" and len(SANDBOXES) > 1:
    SANDBOXES = ["bwrap"]  # CI's other torch builds: the default sandbox (both in the main suite)
SLOW_CALL = "    __import__('time').sleep(0.5)  # the grader's interrupt strikes in here\n"


def exercise_source(ex_id: str) -> str:
    nb = load("01")
    return nb.cells[exercise_index(nb, ex_id)].source


# the exercises the notebook holds, and their cells (1-based); notebook 01's others are missing
HELD = {"01.softmax": 2, "01.dot_product_attention": 4}


def notebook(slow_softmax: bool = False):
    """Cells: 1 imports torch (a cold kernel takes seconds), 2 softmax, 3 a pause, 4 attention."""
    softmax = exercise_source("01.softmax")
    if slow_softmax:  # every call sleeps first: a probe the injected interrupt surely meets
        head, body = softmax.split("\n", 1)
        softmax = f"{head}\n{SLOW_CALL}{body}"
    return plain_notebook(
        "import torch",
        softmax,
        "import time\ntime.sleep(1.5)",
        exercise_source("01.dot_product_attention"),
        notebook="01",
    )


def passed(ex_id: str) -> tuple:
    return (ex_id, "passed", f"passed {len(make_probes(REGISTRY[ex_id], SEED))} cases")


def missing(ex) -> tuple:
    what = "class" if ex.kind == "module" else "function"
    why = f"is not defined in the notebook (is its exercise cell deleted, or the {what} renamed?)."
    return (ex.id, "missing", f"`{target_name(ex)}` {why}")


def rows(*changed: tuple, default=None) -> list[tuple]:
    """The rows of every exercise of notebook 01, in the grader's order: a row of ``changed``
    where it names the exercise, else ``default(ex)`` (default: passed where the notebook holds
    it, else missing). The rows follow notebook 01's exercises as they grow."""
    by_id = {row[0]: row for row in changed}
    default = default or (lambda ex: passed(ex.id) if ex.id in HELD else missing(ex))
    return [by_id.get(ex.id) or default(ex) for ex in exercises_of("01")]


RERAN_ALL = "to grade, the grader re-ran the cells up to cell 4 in a fresh kernel"
RERAN_2 = "to grade, the grader re-ran the cells up to cell 2 in a fresh kernel"


def not_defined(why: str, status: str, ex_id: str, name: str) -> tuple:
    return (ex_id, status, f"not graded: {why} before `{name}` was defined.")


def stopped_at(cell: int, why: str, status: str) -> list[tuple]:
    """The notebook stopped in ``cell``: an exercise defined before it passes; every other one,
    those the notebook does not hold included, is not graded: "not graded: <why> before `name`
    was defined."."""

    def row(ex):
        if HELD.get(ex.id, cell) < cell:
            return passed(ex.id)
        return not_defined(why, status, ex.id, target_name(ex))

    return rows(default=row)


# fault -> (exact rows, a note the recovery leaves, or None when no fresh kernel re-ran cells)
CASES = {
    "": (rows(), None),
    # the notebook's imports: a cold kernel is in `import torch` after 0.3 s
    "cell:1=interrupt@0.3": (
        stopped_at(1, f"cell 1 ran over the time limit of {CELL_TIMEOUT} s per cell", "timeout"),
        None,
    ),
    "cell:1=kill@0.3": (
        stopped_at(1, "the kernel died in cell 1 (os._exit, a crash, or out of memory)", "error"),
        None,
    ),
    # a later cell: the cells before it are re-run in a fresh kernel for the grader
    "cell:3=interrupt@0.3": (
        stopped_at(3, f"cell 3 ran over the time limit of {CELL_TIMEOUT} s per cell", "timeout"),
        RERAN_2,
    ),
    "cell:3=kill@0.3": (
        stopped_at(3, "the kernel died in cell 3 (os._exit, a crash, or out of memory)", "error"),
        RERAN_2,
    ),
    # the grader's own setup: done again in a fresh kernel, nothing is the learner's
    "release=kill@0": (rows(), RERAN_ALL),
    "setup=kill@0": (rows(), RERAN_ALL),
    # a probe: the exercise is called again in a fresh kernel (a death the learner's code
    # causes happens again there: test_grade_batch's 01_kills_kernel; one kill is not theirs)
    "probe:01.softmax=kill@0.2": (rows(), RERAN_ALL),
    "probe:01.dot_product_attention=kill@0": (rows(), RERAN_ALL),
    # results cut while written: the exercise is graded again in a fresh kernel
    "results:01.softmax=truncate": (rows(), RERAN_ALL),
}
SLOW_CASES = {  # the learner's softmax sleeps: the injected interrupt meets it mid-probe
    "probe:01.softmax=interrupt@0.2": (
        rows(
            (
                "01.softmax",
                "timeout",
                f"`softmax` did not finish within {CELL_TIMEOUT} s on the grader's inputs "
                "(an endless loop?).",
            ),
        ),
        RERAN_ALL,
    ),
}


def grade_with(tmp_path, monkeypatch, fault: str, mode: str, device: str, slow=False):
    monkeypatch.setenv(faults.VARIABLE, fault)
    path = write(notebook(slow), tmp_path / "01_faulty.ipynb")
    settings = Settings(
        cell_timeout=CELL_TIMEOUT, total_timeout=300, seed=SEED, sandbox=mode, device=device
    )
    return grade_submission(Submission(path, "01_faulty.ipynb"), settings)


def check(graded, expected, note):
    assert [(r.exercise, r.status, r.message) for r in graded.rows] == expected
    reran = [n for n in graded.notes if n.startswith("to grade, the grader re-ran")]
    assert reran == (
        [f"{note} (a time limit or a crash had stopped the first one)."] if note else []
    )


@pytest.mark.parametrize("mode", SANDBOXES)
@pytest.mark.parametrize("fault", list(CASES))
def test_a_fault_in_a_kernel_of_its_own(tmp_path, monkeypatch, grade_device, fault, mode):
    check(grade_with(tmp_path, monkeypatch, fault, mode, grade_device), *CASES[fault])


@pytest.mark.parametrize("mode", SANDBOXES)
@pytest.mark.parametrize("fault", list(SLOW_CASES))
def test_an_interrupt_in_a_probe(tmp_path, monkeypatch, grade_device, fault, mode):
    graded = grade_with(tmp_path, monkeypatch, fault, mode, grade_device, slow=True)
    check(graded, *SLOW_CASES[fault])


def test_faults_in_a_batch_of_forked_kernels(tmp_path, monkeypatch, grade_device):
    """A batch (zygote, sandbox as found): each submission meets the same faults."""
    from helpers.__main__ import main

    monkeypatch.setenv(faults.VARIABLE, "setup=kill@0,probe:01.dot_product_attention=kill@0")
    for name in ("01_a.ipynb", "01_b.ipynb"):
        write(notebook(), tmp_path / "in" / name)
    out = tmp_path / "g.csv"
    code = main(
        [
            "grade",
            str(tmp_path / "in"),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--seed",
            str(SEED),
            "--timeout",
            str(CELL_TIMEOUT),
            "--device",
            grade_device,
            "--no-progress",
        ]
    )
    with open(out, newline="", encoding="utf-8") as f:
        graded = [(r[0], r[2], r[5], r[7]) for r in csv.reader(f)][1:]
    assert code == 0
    assert graded == [(sub, *row) for sub in ("01_a.ipynb", "01_b.ipynb") for row in rows()]


def test_the_fault_plan_is_read_strictly(monkeypatch):
    monkeypatch.setenv(faults.VARIABLE, "cell:2=interrupt@0.5, setup=kill")
    assert faults.planned() == {"cell:2": ("interrupt", 0.5), "setup": ("kill", 0.2)}
    monkeypatch.setenv(faults.VARIABLE, "setup=explode")
    with pytest.raises(ValueError, match="unknown action 'explode'"):
        faults.planned()
    monkeypatch.delenv(faults.VARIABLE)
    assert faults.planned() == {} and os.environ.get(faults.VARIABLE) is None


def test_re_runs_share_one_bound_on_a_submissions_cells(tmp_path):
    """Issue 31: re-runs in fresh kernels could hold a slot for up to four times the notebook's
    limit. Here every exercise kills its kernel when called (os._exit), so each is graded
    once more in a fresh kernel that re-runs the cells: with a limit of 3 s and cells of 2 s,
    the bound of CELL_BUDGET x 3 s over all kernels stops the third re-run, and says so."""
    import time

    from helpers.grading.kernels.kernel_run import CELL_BUDGET

    dies = "def {name}(*args, **kwargs):\n    import os\n    os._exit(1)"
    nb = plain_notebook(
        "import time\ntime.sleep(2)",
        dies.format(name="softmax"),
        dies.format(name="dot_product_attention"),
        notebook="01",
    )
    path = write(nb, tmp_path / "01_dies.ipynb")
    settings = Settings(cell_timeout=CELL_TIMEOUT, total_timeout=3, seed=SEED, sandbox="none")
    start = time.monotonic()
    graded = grade_submission(Submission(path, "01_dies.ipynb"), settings)
    took = time.monotonic() - start
    said = {r.exercise: (r.status, r.message) for r in graded.rows}
    bound = f"bound of {CELL_BUDGET * 3:g} s on one submission's cells"
    assert any(bound in message for _, message in said.values()), said
    assert all(status != "passed" for status, _ in said.values()), said
    assert took < scaled(60), took  # kernels start in seconds; the cells' own time is bounded
