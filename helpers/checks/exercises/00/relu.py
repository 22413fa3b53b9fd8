"""00.relu: ReLU, the warm-up (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ambiguous_bool


def relu64(x):
    """The reference, float64: x where x > 0, else 0 (the catalogue's programs edit it)."""
    x = x.double()
    return torch.where(x > 0, x, torch.zeros_like(x))


@register
class ReluCheck(Exercise):
    id = "00.relu"
    title = "ReLU, the warm-up"
    points = 1.0
    reference64 = staticmethod(relu64)
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
            raise self.fail("leaky", factor=ratio.mean().item())
        expect_close(got, relu64(x), mistakes=variants(self.mistakes, relu64, (x,)))
