"""00.relu: ReLU, the warm-up (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    named,
    randn,
    register,
)
from ...probes import ambiguous_bool

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
