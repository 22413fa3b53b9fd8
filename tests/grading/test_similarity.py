"""The report's similar-code section on a planted class of 30 (tests/grading/planted.py):
the copied pair and the copy of the reference are flagged, no honest pair is; 200
students take well under a minute."""

from __future__ import annotations

import re
import time

from helpers.__main__ import main
from helpers.grading import similarity as S

from . import classbook, planted
from .builders import load, set_exercise, write


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
    assert S.normalize(a) == S.normalize(b) != S.normalize(c)
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
