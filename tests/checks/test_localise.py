"""The learner's own line (helpers/checks/edits/localise.py, issue 39 item 4): a failed check
points at the line where one edit of the learner's code makes every case pass, shows that edit
only when asked, says nothing past its budget, and every fix it shows passes every case at two
seeds."""

import contextlib
import io
import linecache
import time
from pathlib import Path

import pytest
import torch

from helpers import check
from helpers.checks import DEFAULT_SEED, EXERCISES, candidates, point_at_line
from helpers.checks.edits import localise
from tests.checks.test_heldout import load

HELDOUT_L = Path(__file__).parent / "heldout_l"
SINGLE_EDIT = [p for p in sorted(HELDOUT_L.glob("l*.py")) if load(p)[0].get("single_edit")]

SOFTMAX_DETACHED = """\
import torch


def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp((x - m).detach())
    return e / e.sum(dim=dim, keepdim=True)
"""


def cell(source: str, name: str, filename: str):
    """``name`` defined as a notebook cell defines it: its source in linecache (IPython does
    the same for each cell), its globals a namespace of their own."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), ns)
    return ns[name]


def quiet_check(*args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        result = check(*args, **kwargs)
    return result, out.getvalue()


@pytest.fixture(autouse=True)
def hints_on(monkeypatch):
    """The search on (the suite's conftest turns it off for every other test): "fix", the
    default a learner gets."""
    monkeypatch.setenv(localise.HINTS_ENV, "fix")


@pytest.fixture
def unhurried(monkeypatch):
    """A budget no loaded machine runs out of: what is found must not depend on the load."""
    monkeypatch.setattr(localise, "BUDGET_S", 60.0)


def test_the_line_is_shown_and_the_edit_only_when_asked(unhurried):
    softmax = cell(SOFTMAX_DETACHED, "softmax", "<cell softmax>")
    result, printed = quiet_check("01.softmax", softmax)
    assert not result.passed
    assert "in `softmax`, line 6 (`e = torch.exp((x - m).detach())`)" in result.line
    assert result.line in printed and "fix=True" in printed
    assert "without `.detach()` there, every case passes" in result.fix
    assert result.fix not in printed  # the edit: only when asked
    _, printed = quiet_check("01.softmax", softmax, fix=True)
    assert result.fix in printed


def test_an_instructor_turns_the_edit_or_the_line_off(unhurried, monkeypatch):
    softmax = cell(SOFTMAX_DETACHED, "softmax", "<cell softmax 2>")
    monkeypatch.setenv(localise.HINTS_ENV, "line")
    result, printed = quiet_check("01.softmax", softmax, fix=True)
    assert result.line and not result.fix and "without `.detach()`" not in printed
    monkeypatch.setenv(localise.HINTS_ENV, "cause")
    result, printed = quiet_check("01.softmax", softmax, fix=True)
    assert not result.line and not result.fix and "line 6" not in printed


#: a learner's slip of each kind repairs.py adds to the reference's operators: the exercise,
#: the code, the line (of the code) pointed at, words of the fix
SLIPS = {
    "device not given": (
        "01.softmax",
        """\
def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True) * torch.ones(x.shape)
""",
        4,
        "device=x.device",
    ),
    "an in-place step": (
        "01.softmax",
        """\
def softmax(x, dim=-1):
    x -= x.amax(dim=dim, keepdim=True)
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
""",
        2,
        "x = x - x.amax",
    ),
    "a fixed axis for dim": (
        "01.softmax",
        """\
def softmax(x, dim=-1):
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
""",
        2,
        "`dim` for `-1`",
    ),
    "a local never read": (
        "01.softmax_backward",
        """\
def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    return y * grad_y
""",
        3,
        "y * (grad_y - s)",
    ),
    "a pair swapped": (
        "01.dot_product_attention",
        """\
def dot_product_attention(x):
    weights = torch.softmax(x @ x.transpose(-2, -1), dim=-1)
    return weights, weights @ x
""",
        3,
        "(weights @ x, weights)",
    ),
    "a state call": (
        "01.softmax",
        """\
def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True).detach()
""",
        3,
        "without `.detach()`",
    ),
}


@pytest.mark.parametrize("kind", SLIPS)
def test_a_slip_no_edit_of_the_reference_undoes_is_pointed_at(unhurried, kind):
    exercise, source, line, fix = SLIPS[kind]
    name = exercise.split(".", 1)[1]
    candidate = cell("import torch\n\n" + source, name, f"<cell {kind}>")
    result, _ = quiet_check(exercise, candidate, fix=True)
    assert not result.passed
    assert f"line {line + 2} (" in result.fix and fix in result.fix, result.fix


SAVE_BESIDE = """\
def save_checkpoint(path, model, optimizer, step):
    torch.save(model.state_dict(), f"{path}.model")
    torch.save(optimizer.state_dict(), f"{path}.optim")
    torch.save({"step": step}, path)
"""


def test_the_edits_write_no_file_where_the_learner_works(unhurried, tmp_path, monkeypatch):
    """An edit may name a file after another argument (f"{step}.model"): the search runs the
    edited code in a scratch folder, never in the learner's."""
    monkeypatch.chdir(tmp_path)
    save = cell("import torch\n\n" + SAVE_BESIDE, "save_checkpoint", "<cell save beside>")
    result, _ = quiet_check("07b.save_checkpoint", save, fix=True)
    assert not result.passed
    assert list(tmp_path.iterdir()) == []
    assert Path.cwd() == tmp_path


def test_a_passing_check_does_not_search(monkeypatch):
    softmax = cell(SOFTMAX_DETACHED.replace(".detach()", ""), "softmax", "<cell softmax ok>")
    monkeypatch.setattr(localise, "own_source", pytest.fail)
    result, _ = quiet_check("01.softmax", softmax)
    assert result.passed and not result.line


def test_past_its_budget_it_says_nothing():
    own = localise.own_in_text(SOFTMAX_DETACHED.splitlines(True), "softmax")
    start = time.perf_counter()
    tried = candidates(own)
    found = localise.search(own, lambda source: time.sleep(0.05) or True, 0.0, tried)
    assert found is None
    found = localise.search(own, lambda source: time.sleep(0.05) or False, 0.3, tried)
    assert found is None and time.perf_counter() - start < 1.0


def test_a_class_that_calls_super_is_read_and_rebuilt(unhurried):
    """``super()`` gives each method a ``__class__`` cell; the class is still rebuilt alone."""
    source = (
        "import torch\nfrom torch import nn\n\n\nclass LayerNorm(nn.Module):\n"
        "    def __init__(self, d_model, eps=1e-5):\n        super().__init__()\n"
        "        self.eps = eps\n        self.weight = nn.Parameter(torch.ones(d_model))\n"
        "        self.bias = nn.Parameter(torch.zeros(d_model))\n\n    def forward(self, x):\n"
        "        mean = x.mean(dim=-1, keepdim=True)\n"
        "        var = x.var(dim=-1, keepdim=True, unbiased=True)\n"
        "        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n"
    )
    LayerNorm = cell(source, "LayerNorm", "<cell layernorm>")
    own = localise.own_source(LayerNorm)
    assert own is not None and own.name == "LayerNorm"
    result, _ = quiet_check("05.LayerNorm", LayerNorm)
    assert "line 14" in result.line, result.messages


def test_no_source_no_line():
    """A definition with no source to read (exec'd from a string) is checked as before."""
    ns = {"torch": torch}
    exec("def softmax(x, dim=-1):\n    return torch.exp(x.detach()) / 1.0\n", ns)
    assert localise.own_source(ns["softmax"]) is None
    result, _ = quiet_check("01.softmax", ns["softmax"])
    assert not result.passed and not result.line


@pytest.mark.parametrize("path", SINGLE_EDIT, ids=[p.stem for p in SINGLE_EDIT])
def test_every_fix_shown_passes_every_case_at_two_seeds(path):
    """Set L's single-edit wrong versions, with the budget as shipped: each fix the check would
    show, checked again as a learner's code at the check's seed and the next."""
    meta, candidate = load(path)
    ex = EXERCISES[meta["exercise"]]
    with contextlib.redirect_stdout(io.StringIO()):
        if check(ex.id, candidate, quiet=True).passed:
            return  # accepted: nothing to point at
        found = point_at_line(ex, candidate, DEFAULT_SEED, torch.device("cpu"))
    if found is None:
        return
    fixed = localise.build(found.source, localise.own_source(candidate).ns, found.name, "fixed")
    for seed in (DEFAULT_SEED, DEFAULT_SEED + 1):
        result, _ = quiet_check(ex.id, fixed, seed=seed)
        assert result.passed, (found.line_message(True), result.messages)


def test_the_graders_feedback_gives_the_line_never_the_edit(unhurried):
    """helpers/grading/judging/lines.py: the definition read from the submission's cells (never
    run there); here the kernel's trial of an edit is stood in for by this process."""
    from types import SimpleNamespace

    from helpers.checks import passes_every_case
    from helpers.grading.judging import lines

    ex = EXERCISES["01.softmax"]
    cells = [(0, SimpleNamespace(source="x = 1\n")), (1, SimpleNamespace(source=SOFTMAX_DETACHED))]
    run = SimpleNamespace(cells=cells)
    passes = passes_every_case(ex, torch.device("cpu"), (DEFAULT_SEED, DEFAULT_SEED + 1))

    def in_kernel(source: str) -> bool:
        return passes(localise.build(source, {"torch": torch}, "softmax", "kernel"))

    said = lines.point_at_line(ex, run, in_kernel, budget_s=60.0)
    assert (
        said == "\nin `softmax`, line 6 (`e = torch.exp((x - m).detach())`): one change on "
        "this line makes every case pass."
    )
    assert lines.point_at_line(ex, run, in_kernel, budget_s=0.0) == ""


@pytest.mark.slow
def test_a_graded_notebook_gets_the_line_in_its_feedback(tmp_path, monkeypatch):
    """End to end: notebook 05 with LayerNorm's variance unbiased=True; the grader runs each
    edit in the learner's kernel, and its message gives the line, not the edit."""
    from helpers.grading import Settings, Submission, grade_submission
    from helpers.grading.judging import lines
    from tests.grading.builders import exercise_index, load, write

    monkeypatch.setattr(lines, "BUDGET_S", 300.0)  # kernel calls on a loaded machine
    nb = load("05")
    cell = nb.cells[exercise_index(nb, "05.LayerNorm")]
    cell.source = cell.source.replace("unbiased=False", "unbiased=True")
    path = write(nb, tmp_path / "05_ln.ipynb")
    rows = grade_submission(Submission(path, "05_ln.ipynb"), Settings(seed=7)).rows
    row = next(r for r in rows if r.exercise == "05.LayerNorm")
    assert row.status == "failed"
    wrong = "var = x.var(dim=-1, unbiased=True, keepdim=True)"
    number = 1 + cell.source.splitlines().index(next(s for s in cell.source.splitlines()
                                                      if wrong in s))  # fmt: skip
    assert f"in `LayerNorm`, line {number} (`{wrong}" in row.message  # its comment cut short
    assert "): one change on this line makes every case pass." in row.message
    assert "for `" not in row.message.split("in `LayerNorm`, line")[1]  # never the edit
