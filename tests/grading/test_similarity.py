"""The report's similar-code section on a planted class of 30 (tests/grading/planted.py):
the copied pair and the copy of the reference are flagged, no honest pair is; 200
students take well under a minute."""

from __future__ import annotations

import re
import time

from helpers.__main__ import main
from helpers.grading.judging import similarity as S

from . import classbook, planted
from .builders import NOTEBOOKS, exercise_index, load, set_exercise, write


def test_planted_class_flags_the_copies_only():
    found = {(f.exercise, f.first, f.second) for f in S.find_similar(planted.codes(0))}
    assert found == {
        (planted.SDPA, *planted.COPIED_PAIR),
        (planted.SDPA, planted.COPIED_REFERENCE, "the reference"),
    }


def test_normalisation_ignores_names_comments_and_layout():
    a = "def f(x, y):\n    # add\n    z = x + y\n    return z.sum(-1)\n"
    b = 'def g(p,q):\n    """doc"""\n\n    r=p+q   # other\n    return r.sum(-1)\n'
    c = "def f(x, y):\n    z = x * y\n    return z.mean(-1)\n"  # other operations
    hinted = "def f(x: torch.Tensor, y: 'T' = None) -> float:\n    z: int = x + y\n    w: int\n"
    hinted += "    return z.sum(-1)\n"  # type hints: a tester removed them to hide a copy
    assert S.normalize(a) == S.normalize(b) == S.normalize(hinted.replace("= None", ""))
    assert S.normalize(a) != S.normalize(c)
    assert S.normalize("def f(:\n") is None  # not Python: not compared


def test_report_section_from_the_notebooks(tmp_path, capsys):
    subs = tmp_path / "subs"
    for label, per_ex in planted.codes(0).items():
        nb = load("02")
        for ex, code in per_ex.items():
            set_exercise(nb, ex, code)
        write(nb, subs / label)
    book = classbook.write(tmp_path / "grades.csv")
    report = tmp_path / "r.html"
    args = ["grade", "merge", str(tmp_path / "m.csv"), str(book), "--report", str(report)]
    assert main([*args, "--similarity-from", str(subs)]) == 0
    page = report.read_text(encoding="utf-8")
    rows = re.findall(r"data-first='([^']*)' data-second='([^']*)'", page)
    assert sorted(rows) == sorted(
        [planted.COPIED_PAIR, (planted.COPIED_REFERENCE, "the reference")]
    )
    assert "at least 95% of the smaller" in page


def test_two_hundred_students_under_a_minute():
    big = {}
    for seed in range(7):
        big.update({f"c{seed}-{lb}": code for lb, code in planted.codes(seed).items()})
    big = dict(list(big.items())[:200])
    start = time.perf_counter()
    S.find_similar(big)
    assert time.perf_counter() - start < 60


def test_the_report_reads_a_hostile_notebook_as_grading_does(tmp_path):
    """Issue 31: 200,000 nested lists in a notebook's metadata crashed the report
    (RecursionError, no report.html), and a 57 MB notebook took its process to 1.5 GB. Each is
    now read as grading reads it, in a limited child, or not at all: the rest is compared."""
    import json
    import resource

    honest = load("02")
    nested = load("02")
    nested.metadata["deep"] = None  # replaced in the text by 200,000 nested lists
    (tmp_path / "a_02.ipynb").write_text(json.dumps(honest), encoding="utf-8")
    text = json.dumps(nested).replace('"deep": null', '"deep": ' + "[" * 200_000 + "]" * 200_000)
    (tmp_path / "b_02.ipynb").write_text(text, encoding="utf-8")
    (tmp_path / "c_02.ipynb").write_text('{"cells": [], "x": "' + "y" * 57_000_000 + '"}')
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert S.exercise_cells(tmp_path / "b_02.ipynb") == {}  # refused, not raised
    assert S.exercise_cells(tmp_path / "c_02.ipynb") == {}  # over MAX_CODE_BYTES: unread
    assert S.exercise_cells(tmp_path / "a_02.ipynb")  # the honest one is read
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown < 100, f"the report's process grew by {grown:.0f} MiB"


def test_code_moved_out_of_its_cell_or_run_from_a_string_is_seen(tmp_path):
    """Issue 31: the copied code moved to an unmarked cell after the stub scored 5/5 and was
    never mentioned, and so was code run with exec from base64. The definition the grader runs
    is compared wherever it stands; exec/eval/compile of built text is listed."""
    import base64
    from types import SimpleNamespace

    from nbformat.v4 import new_code_cell

    from helpers.grading.books.report import render, summarize

    source = (
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    d_k = q.size(-1)\n"
        "    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)\n"
        "    if mask is not None:\n"
        "        scores = scores.masked_fill(mask.logical_not(), float('-inf'))\n"
        "    attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)\n"
        "    total = attn.sum(dim=-1, keepdim=True).clamp_min(1e-12)\n"
        "    attn = attn / total\n"
        "    return torch.matmul(attn, v), attn\n"
    )
    stub = "def scaled_dot_product_attention(q, k, v, mask=None):\n    raise NotImplementedError\n"
    first = set_exercise(load("02"), "02.scaled_dot_product_attention", source)
    moved = set_exercise(load("02"), "02.scaled_dot_product_attention", stub)
    moved.cells.insert(40, new_code_cell(source.replace("attn", "w").replace("total", "z")))
    hidden = set_exercise(load("02"), "02.scaled_dot_product_attention", stub)
    packed = base64.b64encode(source.encode()).decode()
    hidden.cells.insert(40, new_code_cell(f"import base64\nexec(base64.b64decode('{packed}'))\n"))
    subs = [
        SimpleNamespace(path=write(nb, tmp_path / f"{who}_02.ipynb"), label=f"{who}_02.ipynb")
        for who, nb in (("ann", first), ("bob", moved), ("eve", hidden))
    ]
    found = S.similar_in(subs)
    pairs = {(f.exercise, f.first, f.second) for f in found if f.exercise != S.OPAQUE}
    assert ("02.scaled_dot_product_attention", "ann_02.ipynb", "bob_02.ipynb") in pairs
    opaque = [f for f in found if f.exercise == S.OPAQUE]
    assert [(f.first, "exec() of a string built at run time" in f.second) for f in opaque] == [
        ("eve_02.ipynb", True)
    ]
    summary = summarize([])
    summary.similar = found
    page = render(summary)
    assert "Code the grader could not read" in page and "eve_02.ipynb" in page


STUB = "def scaled_dot_product_attention(q, k, v, mask=None):\n    raise NotImplementedError\n"
SOLVED = (
    "def scaled_dot_product_attention(q, k, v, mask=None):\n"
    "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(~mask, float('-inf'))\n"
    "    weights = torch.softmax(scores, dim=-1)\n"
    "    return weights @ v, weights\n"
)


def test_an_exercise_scored_without_its_code_in_the_notebook_is_listed(tmp_path):
    """Issue 31 (a tester's breaches): the solution run from a rot13 string through
    getattr(builtins, "ex" + "ec"), rebuilt from a marshalled code object, or imported from a
    file the notebook wrote, got full marks and no mention. Whatever the means, the notebook
    then scores on an exercise whose name is bound by an import or an assignment, or whose only
    code is the stub: listed, for the exercises that scored only."""
    from types import SimpleNamespace

    from nbformat.v4 import new_code_cell

    ex = "02.scaled_dot_product_attention"
    solved = load("02")
    stub = load("02", NOTEBOOKS)

    def hidden(cell: str):
        nb = load("02", NOTEBOOKS)
        nb.cells.insert(exercise_index(nb, ex) + 1, new_code_cell(cell))
        return nb

    notebooks = {
        "ann": solved,  # honest, scored
        "zed": stub,  # the stub left, nothing scored
        "rot": hidden(
            "import builtins, codecs\ngetattr(builtins, 'ex' + 'ec')(codecs.decode(s, 'rot13'))"
        ),
        "mar": hidden(
            "scaled_dot_product_attention = types.FunctionType(marshal.loads(b), globals())"
        ),
        "imp": hidden("from mine_sdpa import scaled_dot_product_attention"),
        "dec": hidden("@lambda stub: hidden\n" + STUB),  # the stub, handed out as other code
        "nog": hidden("@torch.no_grad()\n" + SOLVED),  # a decorator over real code: not listed
        "pas": hidden(STUB.replace("raise NotImplementedError", "pass") + "globals().update(x)"),
        # a decoy definition that computes, and the real code bound to the name otherwise
        "glo": hidden(SOLVED + "globals()['scaled_dot_product_attention'] = real"),
        "for": hidden(SOLVED + "for scaled_dot_product_attention in [real]:\n    pass"),
        "mat": hidden(SOLVED + "match real:\n    case scaled_dot_product_attention:\n        pass"),
        "gst": hidden(SOLVED + "def f():\n    global scaled_dot_product_attention\n    g = 1"),
        "set": hidden(SOLVED + "setattr(sys.modules[__name__], 'scaled_dot_product_attention', r)"),
        "wth": hidden(SOLVED + "with nullcontext(real) as scaled_dot_product_attention:\n    pass"),
        "ali": hidden(SOLVED + "g = globals()\ng.update(scaled_dot_product_attention=real)"),
        "bui": hidden(SOLVED + "globals()['scaled_dot_' + 'product_attention'] = real"),
    }
    subs = [
        SimpleNamespace(path=write(nb, tmp_path / f"{who}_02.ipynb"), label=f"{who}_02.ipynb")
        for who, nb in notebooks.items()
    ]
    scored = {(f"{who}_02.ipynb", ex) for who in notebooks if who != "zed"}
    listed = {f.first: f.second for f in S.similar_in(subs, scored) if f.exercise == S.OPAQUE}
    hidden_ones = ("rot", "mar", "imp", "dec", "pas", "glo", "for", "mat", "gst", "set", "wth")
    hidden_ones += ("ali", "bui")
    assert set(listed) == {f"{w}_02.ipynb" for w in hidden_ones}, listed
    assert "a decorator over its definition" in listed["dec_02.ipynb"]
    assert "always raises or computes nothing" in listed["rot_02.ipynb"]
    assert "bound by an assignment" in listed["mar_02.ipynb"]
    assert "bound by an import from mine_sdpa" in listed["imp_02.ipynb"]
    unscored = [f.first for f in S.similar_in(subs) if f.exercise == S.OPAQUE]
    assert unscored == ["bui_02.ipynb"]  # nothing scored: only what is listed whatever the score


def test_a_trained_model_assigned_as_the_notebook_does_is_not_listed(tmp_path):
    """A trained model is a variable the notebook assigns (`vit = VisionTransformer(...)`): the
    solved notebooks, scored, are not listed (a tester saw the solved 09 listed)."""
    from types import SimpleNamespace

    subs = [
        SimpleNamespace(path=write(load(n), tmp_path / f"{n}.ipynb"), label=f"{n}.ipynb")
        for n in ("06", "09")
    ]
    scored = {("06.ipynb", "06.trained_encoder"), ("09.ipynb", "09.trained_vit")}
    assert not [f for f in S.similar_in(subs, scored) if f.exercise == S.OPAQUE]


def test_the_solved_notebooks_every_exercise_scored_list_nothing():
    """No honest notebook is listed as code the grader could not read: the course's solutions,
    every exercise scored (a definition that always raises, computes nothing, or is missing
    is listed only when it scored)."""
    from pathlib import Path
    from types import SimpleNamespace

    from helpers.checks import EXERCISES
    from helpers.notebook_files import notebook_number

    from .builders import SOLUTIONS

    subs = [SimpleNamespace(path=p, label=p.name) for p in sorted(Path(SOLUTIONS).glob("*.ipynb"))]
    scored = {
        (s.label, i)
        for s in subs
        for i, ex in EXERCISES.items()
        if notebook_number(s.label) == ex.notebook  # 07b's exercises are not 07's
    }
    assert len(scored) == len(EXERCISES)
    assert not [f for f in S.similar_in(subs, scored) if f.exercise == S.OPAQUE]


HOSTILE_CODE = {  # what the parser or a walk of its tree cannot take
    "deep": "_deep = " + "-" * 100_000 + "1",  # MemoryError in ast.parse
    "sum": "x = " + "1 + " * 600 + "1",  # parses; RecursionError in a visitor
    "null": "x = 1\x00",  # SyntaxError (ValueError before Python 3.12)
    "parens": "x = " + "(" * 300 + "1" + ")" * 300,
}


def test_the_report_survives_any_code_a_cell_holds(tmp_path, capsys):
    """Issue 42: ``--report`` ended on a 100,000-character line (``ast.parse`` raised
    MemoryError): exit 1, no report.html, no totals.csv. Each such exercise cell is now left out
    of the comparison, and the report and the totals are written."""
    from helpers.checks import EXERCISES
    from helpers.grading.books.gradebook import Gradebook
    from helpers.grading.records import Row

    ex = "02.scaled_dot_product_attention"
    most = EXERCISES[ex].points
    for code in HOSTILE_CODE.values():
        assert S.normalize(code) is None
    subs, rows = tmp_path / "subs", []
    for name, code in [("honest", None), *HOSTILE_CODE.items()]:
        nb = load("02")
        if code is not None:
            set_exercise(nb, ex, code)
        write(nb, subs / f"{name}/02.ipynb")
        rows.append(Row(f"{name}/02.ipynb", "02", ex, 0.0, most, "error", "it raised"))
    Gradebook(tmp_path / "g.csv", rows).close()
    report, totals = tmp_path / "r.html", tmp_path / "totals.csv"
    args = ["grade", "merge", str(tmp_path / "m.csv"), str(tmp_path / "g.csv")]
    args += ["--report", str(report), "--totals", str(totals), "--similarity-from", str(subs)]
    assert main(args) == 0
    assert "Similar code" in report.read_text(encoding="utf-8") and totals.exists()
