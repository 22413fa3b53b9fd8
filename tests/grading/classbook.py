"""A generated gradebook: 30 submissions of notebook 02 with a known mix of mistakes.

The report's test and the browser test read it; the counts they expect come from ``SPEC``
here, never from the report code.
"""

from __future__ import annotations

import csv
from pathlib import Path

from helpers.checks import REGISTRY
from helpers.grading.books.gradebook import COLUMNS

N_SUBMISSIONS = 30
SDPA, CAUSAL, PADDING = ("02.scaled_dot_product_attention", "02.causal_mask", "02.padding_mask")
NO_SCALE = (f"{SDPA}/no_scale", "the scores are not scaled: divide q @ kᵀ by sqrt(d_k).")
WRONG_AXIS = (
    f"{SDPA}/softmax_wrong_dim",
    "the weights do not sum to 1 over the keys: softmax over dim=-1.",
)
UPPER = (
    f"{CAUSAL}/upper_triangular",
    "the mask is upper-triangular: query i may then see the future keys j > i.",
)
# per exercise, outcomes in submission order: (count, status, (mistake, message) or message)
SPEC = {
    SDPA: [
        (13, "passed", "passed 9 cases"),
        (8, "failed", NO_SCALE),
        (4, "failed", WRONG_AXIS),
        (2, "failed", "case x: the output differs (largest error 0.3 at (0, 1))"),
        (2, "error", "`scaled_dot_product_attention` raised RuntimeError: shape mismatch"),
        (1, "timeout", "`scaled_dot_product_attention` did not finish within 20 s"),
    ],
    CAUSAL: [
        (24, "passed", "passed 3 cases"),
        (5, "failed", UPPER),
        (1, "missing", "not implemented yet"),
    ],
    PADDING: [(30, "passed", "passed 3 cases")],
}


def label(i: int) -> str:
    return f"student{i:02d}/02_scaled_dot_product_attention.ipynb"


def rows() -> list[list[str]]:
    out: dict[int, list[list[str]]] = {i: [] for i in range(N_SUBMISSIONS)}
    for exercise, outcomes in SPEC.items():
        points = REGISTRY[exercise].points
        i = 0
        for count, status, what in outcomes:
            mistake, message = what if isinstance(what, tuple) else ("", what)
            for _ in range(count):
                got = points if status == "passed" else 0
                out[i].append(
                    [label(i), "02", exercise, f"{got:g}", f"{points:g}", status, mistake, message]
                )
                i += 1
        assert i == N_SUBMISSIONS, exercise
    return [row for i in range(N_SUBMISSIONS) for row in out[i]]


def write(path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows())
    return path


def expected_scores() -> list[float]:
    """Each submission's points, summed from the generated rows."""
    totals: dict[str, float] = {}
    for row in rows():
        totals[row[0]] = totals.get(row[0], 0.0) + float(row[3])
    return sorted(totals.values())
