"""Notebook 08: diagnoses shared by its attention exercises (judge side, float64), found from
what the output does rather than from a list of mistakes: the scores multiplied by another
factor than 1 / sqrt(d_k) (fitted), rows off by a factor (the normalisation), and which cells
of a mask are wrong. (Candidates for properties.py: nothing here is specific to notebook 08.)
"""

from __future__ import annotations

import math

import torch

from ...framework import Fail, close


def fit_scale(got: torch.Tensor, make, names: dict[str, tuple[float, str]]) -> Fail | None:
    """``got`` = ``make(c)`` for a multiplier c != 1 of the scores (fitted by a 1-D search over
    log c): a Fail naming c (``names``: {words: (c, code)}), else None."""
    g = got.double()

    def err(log_c: float) -> float:
        return float((make(math.exp(log_c)) - g).abs().nan_to_num(nan=math.inf).max())

    grid = [x / 10 for x in range(-40, 41)]
    lo = min(grid, key=err)
    a, b = lo - 0.1, lo + 0.1
    for _ in range(40):  # golden-section search around the best grid point
        c1, c2 = b - 0.618 * (b - a), a + 0.618 * (b - a)
        a, b = (a, c2) if err(c1) < err(c2) else (c1, b)
    c = math.exp((a + b) / 2)
    if abs(c - 1) < 1e-3 or not close(g, make(c), 1e-4, 1e-3):
        return None
    words, code = next(
        ((w, code) for w, (v, code) in names.items() if math.isclose(c, v, rel_tol=1e-3)),
        (f"{c:.4g}", "wrong_scale"),
    )
    return Fail(
        f"the output is attention with the scores multiplied by {words} on top of the right "
        "scale: the scores are q·k / sqrt(d_k), d_k = q.size(-1), divided once.",
        code,
    )


def scale_names(d: int) -> dict[str, tuple[float, str]]:
    """The multipliers of q·k / sqrt(d_k) a learner gets by mistake, named."""
    r = math.sqrt(d)
    return {
        f"sqrt(d_k) = {r:.3g} (the scores are not scaled)": (r, "no_scale"),
        f"d_k = {d} (multiplied by sqrt(d_k) instead of divided)": (d, "scaled_by_sqrt_d"),
        f"1 / sqrt(d_k) = {1 / r:.3g} (divided by d_k instead of sqrt(d_k))": (
            1 / r,
            "scaled_by_d",
        ),
    }


def rows_scaled(got: torch.Tensor, ref: torch.Tensor, what: str = "the output") -> Fail | None:
    """Each row of ``got`` is the reference's row times its own factor: the denominator."""
    g, r = got.double(), ref.double()
    c = (g * r).sum(-1, keepdim=True) / (r * r).sum(-1, keepdim=True).clamp(min=1e-300)
    if close(c, torch.ones_like(c), 1e-4, 1e-4) or not close(g, c * r, 1e-5, 1e-3):
        return None
    if not g.abs().amax() > 0:  # every factor 0: no denominator does that
        return Fail(
            f"{what} is 0 everywhere, where the expected values are not: nothing reaches it "
            "(are the weighted sums of the values accumulated, and returned?).",
            "all_zero",
        )
    ex = c.flatten()[:2].tolist()
    return Fail(
        f"each row of {what} is the expected one times a factor that changes from row to row "
        f"(e.g. {ex[0]:.3g}, {ex[-1]:.3g}): the normalisation is wrong. Each query's weights "
        "must sum to 1: divide its weighted sum of values by the sum of its weights, once.",
        "rows_scaled",
    )


def mask_cells(got: torch.Tensor, ref: torch.Tensor, window: int, causal: bool) -> Fail:
    """Name the first kind of wrong cell of a (T, T) window mask (True = may attend)."""
    T = ref.shape[-1]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    far, future = (i - j).abs() > window, (j > i) & causal
    kinds = [  # (cells, words, code)
        (got & ~ref & future, "True for a key after the query (j > i)", "mask_allows_future"),
        (got & ~ref & far, f"True for a key more than {window} away", "mask_outside_window"),
        (ref & ~got & (i == j), "False on the diagonal (a query sees itself)", "mask_blocks_self"),
        (ref & ~got, f"False for a key within {window} of the query", "mask_misses_window"),
    ]
    cells, words, code = next(k for k in kinds if bool(k[0].any()))
    a, b = (int(t) for t in cells.nonzero()[0])
    return Fail(
        f"the mask is wrong at query {a}, key {b}: {words}. Keep exactly the keys with "
        f"abs(i - j) <= {window}" + (" and j <= i" if causal else "") + f"; got\n   "
        f"{got.int().tolist()}",
        code,
        figure=(ref, got),
    )
