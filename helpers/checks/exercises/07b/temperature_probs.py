"""07b.temperature_probs: temperature (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    randn,
    register,
)
from ...mistakes import variants
from .reference import temperature64

#: the mistakes of temperature 0, told apart from each other first
GREEDY = ("ties", "tie_last", "global_max")


def greedy_mistake(mistakes: dict, got: torch.Tensor, x: torch.Tensor) -> Fail | None:
    """The mistake of a temperature-0 answer that is not the argmax's one-hot, if known."""
    g = got.double()
    codes = [
        code
        for variant, _, code in variants(mistakes, temperature64, (x, 0), codes=GREEDY)
        if torch.isclose(g, variant(), atol=1e-6).all()
    ]
    if len(codes) == 1:
        return Fail(mistakes[codes[0]].message, codes[0])
    xd = x.double().flatten(0, -2)
    rows = g.flatten(0, -2)
    near = (xd.amax(-1, keepdim=True) - xd) < 1e-3  # the largest logit and those close to it
    fractional = (rows > 1e-3) & (rows < 1 - 1e-3)
    for r in range(rows.size(0)):
        if fractional[r].any() and (fractional[r] <= near[r]).all():
            values = ", ".join(f"{v:.3g}" for v in rows[r][fractional[r]].tolist())
            return Fail(mistakes["split"].say(row=r, values=values), "split")
    return None


def overflow_mistake(
    mistakes: dict, got: torch.Tensor, x: torch.Tensor, temperature: float
) -> Fail | None:
    """NaN or inf where the reference has none, in a case where exp(logits / T) overflows."""
    if torch.isfinite(got).all() or temperature == 0:
        return None
    scaled = x.double() / temperature
    top = float(scaled[torch.isfinite(scaled)].abs().max())
    limit = math.log(torch.finfo(x.dtype).max)
    if top <= limit:
        return None
    bad = "NaN" if torch.isnan(got).any() else "inf"
    fields = {"bad": bad, "top": top, "limit": limit, "dtype": str(x.dtype).split(".")[-1]}
    return Fail(mistakes["overflow"].say(**fields), "overflow")


@register
class TemperatureProbsCheck(Exercise):
    id = "07b.temperature_probs"
    title = "temperature"
    points = 1.0
    reference64 = staticmethod(temperature64)

    def probes(self, gen):
        x = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
        yield Probe("logits [2, 1, 0, -1], temperature 1", args=(x, 1.0))
        yield Probe("random (3, 7), temperature 0.5", args=(randn(3, 7, generator=gen), 0.5))
        yield Probe("random (2, 2, 6), temperature 2", args=(randn(2, 2, 6, generator=gen), 2.0))
        yield Probe("random (4, 5), float64, temperature 0.8",
                    args=(randn(4, 5, dtype=torch.float64, generator=gen), 0.8))  # fmt: skip
        yield Probe("random (3, 6), temperature 0 (greedy)", args=(randn(3, 6, generator=gen), 0))
        y = randn(2, 5, generator=gen)
        y[0, 1] = -math.inf  # a logit a filter removed
        yield Probe("a -inf logit (removed by a filter), temperature 0.7", args=(y, 0.7))
        near = float(torch.tensor(1.0).nextafter(torch.tensor(2.0)))  # 1 + 2^-23 in float32
        ties = torch.tensor(
            [[0.5, 2.0, -1.0, 2.0, 1.0], [1.0, near, 0.0, -2.0, 0.5], [0.0, 3.0, 1.0, 3.0, 3.0]]
        )
        yield Probe("ties and a near tie for the largest logit, temperature 0", args=(ties, 0))
        big = torch.tensor([[60.0, 55.0, 10.0, -5.0], [-3.0, 0.0, 45.0, 44.0]])
        yield Probe("large logits (up to 60), temperature 0.5", args=(big, 0.5))

    def judge(self, probe, out):
        x, temperature = probe.args
        got = expect_tensor(out, "the probabilities")
        if temperature == 0 and tuple(got.shape) == tuple(x.shape[:-1]):
            raise self.fail("index_not_one_hot")
        expect_like(got, x.shape, x.dtype)
        if temperature == 0 and torch.isnan(got).any():
            raise self.fail("zero_temperature_nan")
        ref = temperature64(x, temperature)
        if temperature == 0 and not torch.isclose(got.double(), ref, atol=1e-6).all():
            found = greedy_mistake(self.mistakes, got, x)
            if found is not None:
                raise found
        found = overflow_mistake(self.mistakes, got, x, temperature)
        if found is not None:
            raise found
        others = tuple(code for code in self.mistakes if code not in GREEDY)
        mistakes = variants(self.mistakes, temperature64, (x, temperature), codes=others)
        expect_close(got, ref, "the probabilities", mistakes=mistakes)
