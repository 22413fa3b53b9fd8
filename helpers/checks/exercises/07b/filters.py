"""Notebook 07b: what the checks of the two sampling filters share (07b.top_k_filter,
07b.top_p_filter)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Fail,
    expect_like,
    expect_tensor,
    slips,
)

FILTER_FILL = {
    "zero_fill": "the removed logits are set to 0, and softmax still gives them probability "
    "(exp(0) = 1): set them to float('-inf').",
    "finite_fill": "the removed logits are set to a large negative number: set them to "
    "float('-inf') (exactly 0 probability, and a value nothing can mistake for a logit).",
}


def _output(variant):
    """A wrong filter's output, None where it does not apply to this case (it raised)."""
    try:
        return variant()
    except Exception:
        return None


def judge_filter(got_out, x: torch.Tensor, keep: torch.Tensor, wrong, mistakes: dict) -> None:
    """A filter's output: the logits where ``keep``, -inf elsewhere. ``wrong``: the
    ``(variant, message, code)`` table of the catalogued wrong filters (mistakes.variants: a
    variant makes the wrong output); ``mistakes``: the exercise's catalogue."""
    messages = {code: m.message for code, m in mistakes.items()}
    got = expect_tensor(got_out, "the filtered logits")
    expect_like(got, x.shape, x.dtype)
    xd = x.double()
    ref = xd.masked_fill(~keep, -math.inf)

    def same(a: torch.Tensor) -> bool:
        return bool(torch.isclose(got.double(), a, rtol=1e-6, atol=1e-7).all())

    if same(ref):
        return
    if torch.isnan(got).any():
        raise Fail("the filtered logits contain NaN.", "not_finite")
    # a known mistake is named only when it alone gives this answer (two that give the same
    # answer here are left to the generic message: it must not name a cause the code lacks)
    found = [v[2] for v in wrong if (out := _output(v[0])) is not None and out.shape == xd.shape
             and same(out)]  # fmt: skip
    heads = slips(found, messages, most=3)
    if same(xd):  # what many slips give (a mask never applied, a filter that keeps all)
        raise Fail(
            f"no logit is removed: the output is the logits as they came, where "
            f"{int((~keep).sum())} of the {keep.numel()} are removed here"
            + (f" (slips that give this here: {heads}; or a mask never applied)" if heads else "")
            + ". Set the removed ones to -inf (logits.masked_fill(remove, float('-inf'))) and "
            "return that.",
            None if heads else "nothing_removed",  # several causes: the edit search may name one
        )
    if len(set(found)) == 1:
        raise Fail(messages[found[0]], found[0])
    # several: said as what is known (the edit search may then name one)
    known = (
        f"your output is what each of these slips gives on this case: {heads}. " if heads else ""
    )
    if same(xd.masked_fill(~keep, 0.0)):
        raise Fail(FILTER_FILL["zero_fill"], "zero_fill")
    removed = got.double()[~keep]
    if (
        removed.numel()
        and torch.isfinite(removed).all()
        and (removed < -1e4).all()
        and same(torch.where(keep, xd, got.double()))
    ):
        raise Fail(FILTER_FILL["finite_fill"], "finite_fill")
    kept_got = torch.isfinite(got) & torch.isclose(got.double(), xd, rtol=1e-6, atol=1e-7)
    changed = torch.isfinite(got) & ~kept_got
    if changed.any():
        raise Fail(
            "some logits are changed, not kept: keep each logit as it is (no softmax, no "
            "scaling) and set the removed ones to -inf.",
            "values_changed",
        )
    row = int((kept_got != keep).flatten(0, -2).any(-1).nonzero()[0, 0])
    flat_x, flat_keep, flat_got = x.flatten(0, -2), keep.flatten(0, -2), kept_got.flatten(0, -2)
    raise Fail(
        f"{known}row {row} keeps {int(flat_got[row].sum())} logits, expected "
        f"{int(flat_keep[row].sum())}"
        f" (logits {[round(v, 3) for v in flat_x[row].tolist()]}; kept: "
        f"{flat_got[row].nonzero().flatten().tolist()}, expected "
        f"{flat_keep[row].nonzero().flatten().tolist()})."
    )
