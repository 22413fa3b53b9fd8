"""The grader's parts that need no kernel: results loading, judging, submissions, the batch."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import pickle
import uuid
from pathlib import Path

import pytest
import torch

import helpers.grading as grader
from helpers.__main__ import main
from helpers.checks import REGISTRY, evaluate
from helpers.checks.framework import Exercise, Fail, Probe, Unsupported
from helpers.checks.run.runner import Outcome, run_probe
from helpers.grading import (
    CHECK_SOURCES,
    KERNEL_SIDE_SOURCE,
    Graded,
    ResultError,
    Row,
    Settings,
    Submission,
    UsageError,
    exercises_of,
    find_submissions,
    judge,
    load_results,
    make_probes,
    read_notebook,
)
from helpers.grading import run as run_module

from .builders import load, plain_notebook, write

# --------------------------------------------------------------------------- results from a kernel


def save(tmp_path, obj):
    path = tmp_path / f"{uuid.uuid4().hex}.pt"
    torch.save(obj, path)
    return path


def results(value, **kw):
    item = {"value": value, "error": None, **dict.fromkeys(Outcome.FLAGS, False), **kw}
    return {"status": "ran", "origin": "", "outcomes": [item], "error": ""}


def test_plain_results_load(tmp_path):
    value = (torch.ones(2), {"a": [1, 2.5, "s", None, True]}, {"__unsupported__": "numpy.ndarray"})
    data = load_results(save(tmp_path, results(value)))
    got = data["outcomes"][0].value
    assert torch.equal(got[0], torch.ones(2)) and got[1] == {"a": [1, 2.5, "s", None, True]}
    assert got[2] == Unsupported("numpy.ndarray")


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


class Sub(torch.Tensor):
    pass


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda p: p.write_bytes(pickle.dumps(Evil())), "not plain data"),
        (lambda p: torch.save(results(torch.ones(2).as_subclass(Sub)), p), "not plain data"),
        (
            lambda p: torch.save(results(torch.eye(2).to_sparse()), p),
            "not a plain dense CPU tensor",
        ),
        (lambda p: torch.save(results({1: torch.ones(1)}), p), "keys that are not strings"),
        (lambda p: torch.save({"status": "ran", "outcomes": [{"value": 1}]}, p), "layout"),
        (lambda p: torch.save([1, 2], p), "layout"),
        (lambda p: torch.save(results(None, error=3), p), "layout"),
        (lambda p: p.write_bytes(b"garbage"), "not plain data"),
        (lambda p: None, "wrote no results"),
    ],
)
def test_results_that_are_not_plain_data_are_refused(tmp_path, make, words):
    path = tmp_path / "results.pt"
    make(path)
    with pytest.raises(ResultError, match=words):
        load_results(path)


def test_deep_nesting_is_refused(tmp_path):
    value = torch.ones(1)
    for _ in range(12):
        value = [value]
    with pytest.raises(ResultError, match="nested too deeply"):
        load_results(save(tmp_path, results(value)))


# ------------------------------------------------------------------ the kernel side, in-process


@pytest.fixture(scope="module")
def kernel_side(grade_device):
    ns = {"__name__": "__course_grader__", "device": grade_device}
    exec(compile(KERNEL_SIDE_SOURCE, "<kernel_side>", "exec"), ns)
    ns["setup"](CHECK_SOURCES, package=f"__grader_test_{uuid.uuid4().hex[:6]}__")
    return ns


def graded_as_kernel(kernel_side, tmp_path, ex_id, candidate, seed=5, in_kernel=None):
    """What the grader concludes when the kernel side runs ``candidate`` (here, in-process;
    ``in_kernel``: a context the kernel's half alone runs in)."""
    ex = REGISTRY[ex_id]
    probes = make_probes(ex, seed)
    probes_path, out = tmp_path / "probes.pt", tmp_path / "out.pt"
    torch.save([grader.probe_fields(p) for p in probes], probes_path)
    name = grader.target_name(ex)
    with in_kernel or contextlib.nullcontext():
        kernel_side["grade"](
            grader.kernel_task(ex),
            name,
            str(probes_path),
            str(out),
            kernel_side.get("device", "cpu"),
            {name: candidate},
        )
    data = load_results(out)
    assert data["status"] == "ran"
    return judge(ex, probes, data["outcomes"])[:3]  # (status, points, message); mistake aside


def inline(ex_id, candidate, seed=5):
    ex = REGISTRY[ex_id]
    r = evaluate(
        ex, ((p, run_probe(ex, p, candidate, torch.device("cpu"))) for p in make_probes(ex, seed))
    )
    return r.status, r.points, "\n".join(r.messages)


def softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)


def raises(x, dim=-1):
    raise ValueError("oops")


def stub(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize(
    "ex_id, candidate",
    [
        ("00.relu", lambda x: x * (x > 0)),
        ("00.relu", lambda x: x.abs()),
        ("00.relu", lambda x: x.numpy()),
        ("00.relu", torch.relu),
        ("00.relu", stub),
        ("01.softmax", softmax),
        ("01.softmax", lambda x, dim=-1: softmax(x, 0)),
        (
            "01.softmax",
            lambda x, dim=-1: softmax(x, dim) + 1e-3,
        ),  # a numeric difference, seed-dependent
        ("01.softmax", raises),
        (
            "01.dot_product_attention",
            lambda x: (lambda w: (w @ x, w))(softmax(x @ x.transpose(-2, -1))),
        ),
        (
            "01.dot_product_attention",
            lambda x: (lambda w: (x, w))(softmax(x @ x.transpose(-2, -1), -2)),
        ),
    ],
)
def test_the_grader_judges_like_the_inline_check(kernel_side, tmp_path, ex_id, candidate):
    assert graded_as_kernel(kernel_side, tmp_path, ex_id, candidate) == inline(ex_id, candidate)


@pytest.mark.parametrize("ex_id", sorted(REGISTRY))
def test_every_exercise_runs_through_the_kernel_side(kernel_side, tmp_path, ex_id):
    """Probes of every kind travel to the kernel side; a stub comes back 'missing' (a question's
    stub is the student notebook's ``q_name = ...``)."""
    ex = REGISTRY[ex_id]
    candidate = {"trained": stub_model(ex), "question": ...}.get(ex.kind, stub)
    status, points, message = graded_as_kernel(kernel_side, tmp_path, ex_id, candidate)
    assert (status, points) == ("missing", 0.0), message


class StubModel(torch.nn.Module):
    """A trained-model exercise's stub: a model whose forward is not written yet."""

    def forward(self, x):
        raise NotImplementedError


def stub_model(ex) -> torch.nn.Module:
    """A StubModel of the class and with the parts the exercise's contract names (the check
    refuses any other model before calling it)."""
    contract = getattr(ex, "contract", {})
    model = type(contract.get("") or "StubModel", (StubModel,), {})()
    for path, cls in contract.items():
        if path:
            setattr(model, path, type(cls or "Part", (torch.nn.Module,), {})())
    return model


def test_patched_helpers_do_not_reach_the_kernel_side(kernel_side, tmp_path, monkeypatch):
    import helpers.checks.run.runner

    monkeypatch.setattr(helpers.checks.run.runner, "run_probe", lambda *a, **k: None)
    status, _, message = graded_as_kernel(kernel_side, tmp_path, "00.relu", lambda x: x.abs())
    assert status == "failed" and "you returned |x|" in message


def test_a_patched_to_device_does_not_reach_the_kernel_side(kernel_side, tmp_path, monkeypatch):
    """The runner moves inputs with its private copy of helpers.device: a learner who patches
    the installed one (to call the switched-off softmax outside the call, say) gains nothing."""
    import helpers.device

    calls = []

    @contextlib.contextmanager
    def patched():  # in the kernel's half only: the judge runs in a process of its own
        with monkeypatch.context() as m:
            m.setattr(helpers.device, "to_device", lambda x, d: calls.append(1) or x)
            yield

    status, _, _ = graded_as_kernel(kernel_side, tmp_path, "01.softmax", softmax, patched())
    assert status == "passed" and calls == []


def test_grading_probes_are_not_the_public_ones():
    ex = REGISTRY["01.softmax"]
    public = list(ex.probes(torch.Generator().manual_seed(1234)))
    for seed in (1234, 0, 7):
        secret = make_probes(ex, seed)
        random_cases = [(a, b) for a, b in zip(public, secret) if "random" in a.name]
        assert random_cases and all(not torch.equal(a.args[0], b.args[0]) for a, b in random_cases)
    assert all(
        torch.equal(a.args[0], b.args[0]) for a, b in zip(make_probes(ex, 3), make_probes(ex, 3))
    )


# --------------------------------------------------------------------------- submissions


def test_find_submissions(tmp_path):
    write(load("00"), tmp_path / "a" / "00_welcome.ipynb")
    write(load("00"), tmp_path / "a" / ".ipynb_checkpoints" / "00_welcome-checkpoint.ipynb")
    write(load("01"), tmp_path / "b" / "01_x.ipynb")
    subs = find_submissions([tmp_path, tmp_path / "b" / "01_x.ipynb"])
    assert [s.label for s in subs] == ["a/00_welcome.ipynb", "b/01_x.ipynb"]
    with pytest.raises(UsageError, match="no such file"):
        find_submissions([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no .ipynb files"):
        find_submissions([tmp_path / "empty"])


def test_metadata_says_which_notebook(tmp_path):
    sub = Submission(write(load("01"), tmp_path / "00_welcome.ipynb"), "x")
    read_notebook(sub)
    assert sub.notebook == "01" and sub.problem is None and "graded as notebook 01" in sub.notes[0]
    sub = Submission(write(plain_notebook("x = 1", notebook=2), tmp_path / "x.ipynb"), "x")
    read_notebook(sub)
    assert sub.notebook == "02"
    sub = Submission(write(plain_notebook("x = 1"), tmp_path / "03_mha.ipynb"), "x")
    read_notebook(sub)
    assert sub.notebook == "03"


# --------------------------------------------------------------------------- the batch (no kernels)


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["grade", *map(str, args), "--no-progress"])
    return code, out.getvalue(), err.getvalue()


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_bad_arguments_exit_2_with_a_message(tmp_path):
    code, _, err = run_cli(tmp_path / "nope.ipynb", "--out", tmp_path / "g.csv")
    assert code == 2 and "no such file or folder" in err
    code, _, err = run_cli(tmp_path, "--out", tmp_path / "missing" / "g.csv")
    assert code == 2 and "does not exist" in err
    code, _, err = run_cli(tmp_path, "--jobs", "0")
    assert code == 2 and "--jobs" in err


def test_resume_keeps_graded_rows_and_says_so(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("00_a.ipynb", "01_b.ipynb"):
        (subs / name).write_text("{", encoding="utf-8")
    out = tmp_path / "grades.csv"
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(grader.OLD_COLUMNS)  # a gradebook from before the `mistake` column
        w.writerow(["00_a.ipynb", "00", "00.relu", "1", "1", "passed", "kept from before"])
        f.write("01_b.ipynb,01,01.soft")  # a line cut short by a crash
    code, stdout, err = run_cli(subs, "--out", out, "--resume")
    assert code == 0 and "keeping the rows of 1 submissions" in err
    rows = read_csv(out)
    assert rows[0] == grader.COLUMNS
    assert rows[1] == ["00_a.ipynb", "00", "00.relu", "1", "1", "passed", "", "kept from before"]
    assert [r[:6] for r in rows[2:]] == [  # a row per exercise of notebook 01
        ["01_b.ipynb", "01", ex.id, "0", f"{ex.points:g}", "error"] for ex in exercises_of("01")
    ]
    code, _, err = run_cli(subs, "--out", out)
    rows = 1 + len(exercises_of("00")) + len(exercises_of("01"))
    assert code == 0 and "overwriting" in err and len(read_csv(out)) == rows


def test_a_crashing_worker_costs_only_its_submission(tmp_path, monkeypatch):
    write(load("00"), tmp_path / "subs" / "00_a.ipynb")
    (tmp_path / "subs" / "00_b.ipynb").write_text("[]", encoding="utf-8")

    def crash(*args, **kwargs):
        os._exit(3)

    monkeypatch.setattr(run_module, "grade_submission", crash)  # the forked worker inherits it
    out = tmp_path / "g.csv"
    code, stdout, _ = run_cli(tmp_path / "subs", "--out", out, "--jobs", "2")
    assert code == 0
    crashed = "the grader failed on this submission: the worker process ended without a result"
    not_a_notebook = "not a notebook: the JSON has no list of cells."
    assert read_csv(out)[1:] == [
        [label, "00", ex.id, "0", f"{ex.points:g}", "error", "", why]
        for label, why in (("00_a.ipynb", crashed), ("00_b.ipynb", not_a_notebook))
        for ex in exercises_of("00")
    ]


def test_rows_are_on_disk_before_the_batch_ends(tmp_path, monkeypatch):
    for name in ("00_a.ipynb", "00_b.ipynb", "00_c.ipynb"):
        write(load("00"), tmp_path / "subs" / name)
    calls = []

    def fake(sub, settings, nb=None, slot=None, on_kernel=None):
        return Graded([Row(sub.label, "00", "00.relu", 1.0, 1.0, "passed", "ok")])

    def feedback(sub, graded):
        calls.append(sub.label)
        if len(calls) == 2:
            raise RuntimeError("the grader itself fails")
        return "text"

    monkeypatch.setattr(run_module, "grade_submission", fake)
    monkeypatch.setattr("helpers.grading.books.feedback.feedback_markdown", feedback)
    out = tmp_path / "g.csv"
    with pytest.raises(RuntimeError):
        grader.grade_batch(
            [tmp_path / "subs"],
            out,
            feedback=tmp_path / "fb",
            progress=False,
            settings=Settings(seed=1),
            log=lambda m: None,
        )
    assert read_csv(out)[1:] == [
        ["00_a.ipynb", "00", "00.relu", "1", "1", "passed", "", "ok"],
        ["00_b.ipynb", "00", "00.relu", "1", "1", "passed", "", "ok"],
    ]


def reference_blocks():
    """(exercise id, the helpers.blocks object of that name) for the exercises that have one."""
    import importlib
    import pkgutil

    import helpers.blocks

    found = {}
    for mod in pkgutil.iter_modules(helpers.blocks.__path__):
        module = importlib.import_module(f"helpers.blocks.{mod.name}")
        for ex_id, ex in REGISTRY.items():
            obj = getattr(module, grader.target_name(ex), None)
            if obj is not None and ex_id not in found:
                found[ex_id] = obj
    return sorted(found.items())


@pytest.mark.parametrize("ex_id, reference", reference_blocks())
def test_reference_blocks_pass_through_the_kernel_side(kernel_side, tmp_path, ex_id, reference):
    """Functions and modules (state dicts sent, outputs returned) pass as they do inline."""
    got = graded_as_kernel(kernel_side, tmp_path, ex_id, reference)
    assert got == inline(ex_id, reference)
    assert got[0] == "passed", got


def test_feedback_path_of_a_deep_folder_is_a_name_the_file_system_takes(tmp_path):
    """A notebook under long folder names (README allows any layout) gets a feedback file whose
    name stays under 255 bytes, distinct per submission; before, writing it raised Errno 36
    and ended the batch."""
    from helpers.grading.books.feedback import feedback_path

    deep = "/".join(["é" * 130, "b" * 130])
    paths = {feedback_path(tmp_path, f"{deep}/{who}_02.ipynb") for who in ("alice", "bob")}
    assert len(paths) == 2
    for path in paths:
        assert len(path.name.encode()) <= 255
        path.write_text("ok", encoding="utf-8")
    assert feedback_path(tmp_path, "alice/02.ipynb").name == "alice__02.md"


def test_text_from_a_submission_is_written_without_control_characters():
    """ESC sequences (clearing a terminal, an OSC 52 clipboard write), NUL, BEL and bidi
    overrides reach neither the gradebook nor the feedback; HTML in a note is shown as text."""
    from helpers.grading.books.feedback import feedback_markdown
    from helpers.grading.books.gradebook import fields, guard, unguard
    from helpers.grading.records import Graded, Row, Submission

    hostile = "=cmd\x1b[2J\x1b]52;c;aGk=\x07\x00\u202eevil\tok"
    assert guard(hostile) == "'=cmd\ufffd[2J\ufffd]52;c;aGk=\ufffd\ufffd\ufffdevil\ufffdok"
    assert unguard(guard(hostile)).startswith("=cmd")
    row = Row("a\x1b.ipynb", "00", "00.relu", 0.0, 1.0, "failed", hostile, "")
    assert not any(c in guard(cell) for cell in fields(row) for c in "\x1b\x00\x07\u202e")
    graded = Graded([row], notes=['<img src=x onerror="alert(1)"> \x1b[31mred'])
    text = feedback_markdown(Submission(Path("a.ipynb"), "a\x1b<b>.ipynb"), graded)
    assert not any(c in text for c in "\x1b\x00\x07\u202e")
    shown = markdown_html(text)  # what a Markdown viewer makes of it: the HTML shown as text
    assert "<img" not in shown and "&lt;img src=x" in shown and "a\ufffd&lt;b&gt;.ipynb" in shown


def markdown_html(text: str) -> str:
    """``text`` rendered by mistune (nbconvert's Markdown renderer), raw HTML kept as a viewer
    that allows it would (the strictest case for us)."""
    import mistune

    return mistune.create_markdown(escape=False)(text)


def test_learner_text_in_feedback_is_inert_markdown():
    """A name, a message and a note that try a remote image, a link, HTML and a code fence of
    their own: the rendered feedback holds none of them as live elements (issue 31, item 7)."""
    from helpers.grading.books.feedback import feedback_markdown
    from helpers.grading.records import Graded, Row, Submission

    hostile = (
        "![x](https://evil.example/p.png) [click](https://evil.example) <b>bold</b>\n"
        "```\n# heading\n![y](https://evil.example/q.png)\n````"
    )
    row = Row("[a](https://evil.example).ipynb", "00", "00.relu", 0.0, 1.0, "failed", hostile, "")
    graded = Graded([row], notes=[hostile, "`x` ``y``"])
    sub = Submission(Path("a.ipynb"), "![n](https://evil.example/n.png)`.ipynb")
    shown = markdown_html(feedback_markdown(sub, graded))
    for live in ("<img", "<a ", "<b>", "<h1>heading"):
        assert live not in shown, (live, shown)
    assert "evil.example/p.png" in shown  # shown, as text


def test_feedback_files_never_collide():
    """alice/02_x.ipynb and a top-level alice__02_x.ipynb (and labels alike) get a file each."""
    from helpers.grading.books.feedback import feedback_path

    labels = [
        "alice/02_x.ipynb", "alice__02_x.ipynb", "a/_b.ipynb", "a_/b.ipynb", "a___b.ipynb",
        "x--y.ipynb", "x/y.ipynb", "x__y.ipynb", "eve/alice__02_x.ipynb", "eve__alice/02_x.ipynb",
    ]  # fmt: skip
    names = {feedback_path(Path("D"), label) for label in labels}
    assert len(names) == len(labels)
    digest = feedback_path(Path("D"), "alice/02_x.ipynb").name
    assert digest == "alice__02_x.md"  # a clean label keeps the name the README gives


class _Coin(Exercise):
    """A check that fails its own reference for half the draws: tails."""

    title = "a coin"

    def probes(self, gen):
        yield Probe("a coin", args=(torch.rand((), generator=gen),))

    def judge(self, probe, out):
        if float(probe.args[0]) < 0.5:
            raise Fail("tails")


def test_inputs_the_course_version_fails_are_drawn_again(monkeypatch, capfd):
    """A check that misses a correct answer on some inputs would cost every correct answer of
    the batch (one seed for all): the grader keeps the first draw the course's own version
    passes, found in a child process before the workers fork, and says so on stderr."""
    from helpers.grading.judging import judging

    coin = _Coin()
    coin.id = "99.coin"
    monkeypatch.setattr(judging, "course_version", lambda ex: lambda x: x)
    monkeypatch.setattr(judging, "_DRAWS", {})
    seed = next(s for s in range(100) if float(judging._draw(coin, s, 0)[0].args[0]) < 0.5)
    judging.settle_draws([coin], seed)  # in a forked child
    draw = judging._DRAWS[(coin.id, seed)]
    assert draw > 0 and float(judging.make_probes(coin, seed)[0].args[0]) >= 0.5
    assert f"graded on draw {draw} instead" in capfd.readouterr().err
    monkeypatch.setattr(judging, "_DRAWS", {})  # found in this process as well, the same
    assert judging.good_draw(coin, seed) == draw
    heads = next(s for s in range(100) if float(judging._draw(coin, s, 0)[0].args[0]) >= 0.5)
    assert judging.good_draw(coin, heads) == 0  # a draw it passes is kept as it is
