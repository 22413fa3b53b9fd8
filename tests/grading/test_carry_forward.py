"""Error carried forward in the grader (issue 18, item 2): a notebook 05 whose only mistake is
LayerNorm's unbiased variance keeps the encoder block's points; ``--no-carry-forward`` gives 0."""

from __future__ import annotations

import pytest

from .builders import exercise_index, load, write

BLOCK = "05.TransformerEncoderBlock"
UNBIASED = "var = x.var(dim=-1, unbiased=False, keepdim=True)"
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("carry", [True, False])
def test_grader_carries_forward_unless_told_not_to(tmp_path, grade_device, carry):
    from helpers.grading import Settings, Submission, grade_submission

    nb = load("05")
    cell = nb.cells[exercise_index(nb, "05.LayerNorm")]
    assert UNBIASED in cell.source
    cell.source = cell.source.replace(UNBIASED, "var = x.var(dim=-1, keepdim=True)")
    path = write(nb, tmp_path / "05_ln.ipynb")
    settings = Settings(seed=7, device=grade_device, carry_forward=carry)
    rows = {r.exercise: r for r in grade_submission(Submission(path, "05_ln.ipynb"), settings).rows}
    assert rows["05.LayerNorm"].status == "failed"
    assert rows["05.LayerNorm"].mistake == "05.LayerNorm/unbiased_variance"
    row = rows[BLOCK]
    if carry:
        assert (row.status, row.points) == ("passed", 3.0)
        assert row.message.startswith("carried forward from 05.LayerNorm: ")
    else:
        assert (row.status, row.points, row.mistake) == ("failed", 0.0, f"{BLOCK}/faulty_part")
        assert "your LayerNorm (see 05.LayerNorm)" in row.message
    assert rows["05.FeedForward"].status == "passed"


def test_class_report_counts_carried_forward_rows():
    from helpers.grading.books.report import summarize
    from helpers.grading.records import Row

    carried = "carried forward from 05.LayerNorm: your TransformerEncoderBlock is right; ..."
    rows = [
        Row("a", "05", BLOCK, 3.0, 3.0, "passed", carried),
        Row("b", "05", BLOCK, 3.0, 3.0, "passed", "passed 10 cases"),
        Row("c", "05", BLOCK, 0.0, 3.0, "failed", "case ...", f"{BLOCK}/faulty_part"),
    ]
    stats = summarize(rows).exercises[BLOCK]
    assert (stats.carried, stats.counts["passed"], stats.counts["failed"]) == (1, 2, 1)
