"""The class report per student: a resubmission counts once (the latest), empty notebooks and
notebooks that raised are listed, count axes are whole numbers, no heading is left empty."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from helpers.grading.books.gradebook import read_rows
from helpers.grading.books.report import histogram_figure, summarize, write_report

from . import classbook
from .classbook import COLUMNS

EXS = ["02.scaled_dot_product_attention", "02.causal_mask", "02.padding_mask"]
POINTS = [3, 1, 1]


def book(tmp_path: Path, subs: dict[str, list[str]]) -> Path:
    """label -> a status per exercise of notebook 02."""
    path = tmp_path / "g.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for label, statuses in subs.items():
            for ex, pts, st in zip(EXS, POINTS, statuses):
                got = pts if st == "passed" else 0
                msg = "raised ValueError" if st == "error" else st
                w.writerow([label, "02", ex, got, pts, st, "", msg])
    return path


CLASS = {  # Canvas's download names: name_userid_fileid_...; ann handed in 02 three times
    "annlee_1_10_02_a.ipynb": ["failed", "failed", "failed"],
    "annlee_1_11_02_a.ipynb": ["failed", "passed", "failed"],
    "annlee_1_12_02_a.ipynb": ["passed", "passed", "passed"],
    "bochen_2_20_02_a.ipynb": ["missing", "missing", "missing"],
    "cyda_3_30_02_a.ipynb": ["error", "passed", "passed"],
    "dee_4_40_02_a.ipynb": ["passed", "failed", "passed"],
}


def test_a_resubmission_counts_once(tmp_path):
    summary = summarize(read_rows(book(tmp_path, CLASS)))
    assert (summary.students, summary.submissions, summary.counted) == (4, 6, 4)
    # ann's latest (all passed) counts; her two earlier files do not
    assert sorted(summary.scores["02"]) == [0, 2, 4, 5]
    assert summary.exercises[EXS[0]].counts["passed"] == 2  # ann and dee, not 3 rows of ann
    assert summary.exercises[EXS[0]].total == 4


def test_empty_and_raising_notebooks_are_listed(tmp_path):
    out = tmp_path / "r.html"
    write_report(out, read_rows(book(tmp_path, CLASS)))
    page = out.read_text(encoding="utf-8")
    assert re.search(r"<ul id='empty'>\s*<li>bochen_2_20_02_a.ipynb</li>\s*</ul>", page)
    assert "Notebooks that raised or timed out (1)" in page
    assert page.count("<tr data-status='error'>") == 1 and "cyda_3_30_02_a.ipynb" in page


def test_no_heading_is_left_empty(tmp_path):
    for rows in (CLASS, {"x/02_a.ipynb": ["passed"] * 3}):
        out = tmp_path / "r.html"
        write_report(out, read_rows(book(tmp_path, rows)))
        page = out.read_text(encoding="utf-8")
        # every heading is followed by something that is not a heading
        for m in re.finditer(r"</h[23]>\s*", page):
            assert not re.match(r"<h[1-3]|</body>", page[m.end() :]), page[m.start() - 80 :][:200]
    assert "Most frequent mistakes" not in page and "raised" not in page  # all passed


def test_count_axes_are_whole_numbers(tmp_path):
    for rows in (read_rows(book(tmp_path, CLASS)), read_rows(classbook.write(tmp_path / "c.csv"))):
        fig = histogram_figure(summarize(rows))  # 1 student per bar: matplotlib's own 0.2 steps
        fig.canvas.draw()
        ticks = [t for ax in fig.axes for t in ax.get_yticks()]
        assert ticks and all(float(t).is_integer() for t in ticks)


def test_feedback_path_is_the_one_the_guide_gives(tmp_path):
    from helpers.grading.books.feedback import feedback_path

    from ..docs import docs_text

    assert "`DIR/alice__02_scaled_dot_product_attention.md`" in docs_text()
    got = feedback_path(Path("DIR"), "alice/02_scaled_dot_product_attention.ipynb")
    assert got == Path("DIR/alice__02_scaled_dot_product_attention.md")


def test_feedback_says_late(tmp_path):
    from helpers.grading.books.feedback import feedback_markdown
    from helpers.grading.records import Graded, Row, Submission

    graded = Graded([Row("x", "00", "00.relu", 1, 1, "passed", "ok")])
    late = feedback_markdown(Submission(Path("a"), "kim_LATE_1_2_00_w.ipynb"), graded)
    on_time = feedback_markdown(Submission(Path("a"), "kim_1_2_00_w.ipynb"), graded)
    assert "Handed in late" in late and "Handed in late" not in on_time
