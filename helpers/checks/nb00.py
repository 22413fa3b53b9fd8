"""Notebook 00 (welcome): a toy exercise to see a check fail and pass, a stretch one (all
pairwise squared distances, numerically careful), and a question about what a check does."""

from __future__ import annotations

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    named,
    randn,
    register,
)
from .probes import ambiguous_bool
from .questions import Question

MISTAKES = {
    "abs": "you returned |x|: negative inputs must become 0, not positive.",
    "negative_part": "you kept the negative part: keep x where x > 0 and put 0 elsewhere.",
    "identity": "the output equals the input: negative values must become 0.",
    "step": "the output is 1 where x is positive (the step function, x > 0): keep the positive "
    "values themselves, x where x > 0 and 0 elsewhere.",
}


@register
class ReluCheck(Exercise):
    id = "00.relu"
    title = "ReLU, the warm-up"
    points = 1.0
    forbid = ("torch.nn.functional.relu", *(f"torch.{t}{f}" for t in ("", "Tensor.")
                                             for f in ("relu", "clamp", "clip")))  # fmt: skip

    def probes(self, gen):
        yield Probe("x = [-2, -0.5, 0, 1.5]", args=(torch.tensor([-2.0, -0.5, 0.0, 1.5]),))
        yield Probe("random (3, 4)", args=(randn(3, 4, generator=gen),))
        yield Probe(
            "random (2, 3, 5), float64", args=(randn(2, 3, 5, dtype=torch.float64, generator=gen),)
        )

    def explain_error(self, probe, error):
        return ambiguous_bool(error)

    def judge(self, probe, out):
        (x,) = probe.args
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        neg = x < 0
        ratio = got[neg].double() / x[neg].double()
        if neg.any() and (ratio > 0).all() and (ratio < 0.5).all():
            raise Fail(
                f"negative inputs are multiplied by {ratio.mean().item():.3g} (a leaky ReLU): "
                "ReLU puts 0 there, max(x, 0).",
                "leaky",
            )
        mistakes = named(
            MISTAKES,
            abs=lambda: x.abs(),
            negative_part=lambda: torch.where(x < 0, x, torch.zeros_like(x)),
            identity=lambda: x,
            step=lambda: (x > 0).to(x.dtype),
        )
        expect_close(got, torch.where(x > 0, x, torch.zeros_like(x)), mistakes=mistakes)


@register
class CheckVerdictQuestion(Question):
    id = "00.q_check_verdict"
    title = "what a check does with a wrong answer"
    answer = "b"
    choices = {
        "a": "a check compares the values with a reference's, on several inputs: the shape "
        "and the dtype are only its first steps, and |x| differs from ReLU wherever x < 0.",
        "b": "",
        "c": "a check never raises for a learner's mistake: it prints its verdict and returns "
        "a result (an error inside your code is reported with your line), and the notebook "
        "goes on.",
        "d": "a failed check says more than that: the case it failed on, and the mistake where "
        "it recognises it.",
    }
    explanation = (
        "a check runs your code on its cases, compares each with a reference computed on the "
        "spot, and at the first case that differs stops and says which case it was and, where "
        "it knows the mistake (here |x|), what to change; it never raises, so the notebook goes "
        "on."
    )


# --------------------------------------------------------------------------- the stretch

DIST_MISTAKES = {
    "not_squared": "these are the distances themselves, ||a_i - b_j||: return their squares "
    "(leave out the square root).",
    "missing_two": "the cross term is a_i·b_j once: ||a - b||² = ||a||² + ||b||² - 2 a·b, with "
    "the factor 2.",
    "plus_cross_term": "the cross term is added: ||a - b||² = ||a||² + ||b||² - 2 a·b, minus.",
    "dot_product": "these are the dot products a_i·b_j (a @ bᵀ, attention's scores), not "
    "the squared distances ||a_i - b_j||².",
    "l1": "these are the sums of |a_i - b_j| over the features (the L1 distance): square the "
    "differences instead of taking their absolute value.",
}


def sq_dists64(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Reference: float64, from the differences (no cancellation)."""
    diff = a.double()[..., :, None, :] - b.double()[..., None, :, :]  # (..., N, M, d)
    return (diff**2).sum(-1)


def _cancelled(got: torch.Tensor, ref: torch.Tensor, a: torch.Tensor, b: torch.Tensor):
    """A Fail where ``got`` is off by about what float32 rounding of ||a||² + ||b||² - 2 a·b
    gives for points far from the origin (catastrophic cancellation), else None."""
    if got.dtype != torch.float32:
        return None
    big = (a.double() ** 2).sum(-1).amax() + (b.double() ** 2).sum(-1).amax()
    err = (got.double() - ref).abs().max().item()
    if err > 64 * torch.finfo(torch.float32).eps * big.item():
        return None  # more than rounding: some other mistake
    return Fail(
        f"off by up to {err:.2g} for points far from the origin (entries near "
        f"{a.abs().mean().item():.0f}), though your answer is right near 0: ||a||² + ||b||² - "
        "2 a·b subtracts large numbers that agree in their first digits (near "
        f"{big.item() / 2:.1e} for these points as they are), and float32 keeps about 7 "
        "(catastrophic cancellation). Distances do not change when every point moves by the "
        "same vector: bring the points near the origin first, subtracting one common centre "
        "close to them (b's mean, say) from both a and b, as softmax subtracts the max.",
        "cancellation",
    )


@register
class PairwiseSqDistsCheck(Exercise):
    id = "00.pairwise_sq_dists"
    title = "all pairwise squared distances, with no loop"
    points = 2.0
    forbid = (
        "torch.cdist",
        "torch.functional.cdist",
        "aten._cdist_forward",
        "aten._euclidean_dist",
    )

    def probes(self, gen):
        hand = (torch.tensor([[0.0, 0.0], [3.0, 4.0]]),
                torch.tensor([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]]))  # fmt: skip
        yield Probe("a = [[0, 0], [3, 4]], b = [[0, 0], [1, 0], [3, 0]]", args=hand)
        yield Probe("random a (5, 3), b (4, 3)", args=(randn(5, 3, generator=gen),
                                                      randn(4, 3, generator=gen)))  # fmt: skip
        yield Probe(
            "batch: a (2, 3, 4), b (2, 6, 4)",
            args=(randn(2, 3, 4, generator=gen), randn(2, 6, 4, generator=gen)),
        )
        same = randn(6, 5, generator=gen)
        yield Probe("a and b the same 6 points (the diagonal is 0)", args=(same, same.clone()))
        yield Probe(
            "float64, a (2, 4, 3), b (2, 5, 3)",
            args=tuple(randn(2, n, 3, dtype=torch.float64, generator=gen) for n in (4, 5)),
        )
        far = [1000 + randn(n, 8, generator=gen) for n in (6, 7)]
        yield Probe("points far from the origin: 1000 + random, a (6, 8), b (7, 8)", args=far)

    def explain_error(self, probe, error):
        return ambiguous_bool(error)

    def judge(self, probe, out):
        a, b = probe.args
        *batch, N, _ = a.shape
        M = b.shape[-2]
        got = expect_tensor(out)
        if N != M and tuple(got.shape) == (*batch, M, N):
            raise Fail(
                f"the output has shape {fmt_shape(got.shape)}, expected "
                f"{fmt_shape((*batch, N, M))}: row i holds a's point i, column j b's point j.",
                "transposed",
            )
        expect_like(got, (*batch, N, M), a.dtype)
        expect_finite(got)
        ref = sq_dists64(a, b)
        a64, b64 = a.double(), b.double()
        na, nb = (a64**2).sum(-1), (b64**2).sum(-1)
        dots = a64 @ b64.transpose(-2, -1)
        mistakes = named(
            DIST_MISTAKES,
            not_squared=lambda: ref.sqrt(),
            missing_two=lambda: na[..., :, None] + nb[..., None, :] - dots,
            plus_cross_term=lambda: na[..., :, None] + nb[..., None, :] + 2 * dots,
            dot_product=lambda: dots,
            l1=lambda: (a64[..., :, None, :] - b64[..., None, :, :]).abs().sum(-1),
        )
        expect_close(got, ref, mistakes=mistakes, explain=lambda g: _cancelled(g, ref, a, b))
        if (got < 0).any():
            raise Fail(
                f"some squared distances are negative (the smallest is "
                f"{got.min().item():.2g}): rounding in ||a||² + ||b||² - 2 a·b can go below 0 "
                "where two points coincide. A squared distance never is: clamp at 0 "
                "(.clamp_min(0)).",
                "negative",
            )
