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
from .reference import temperature64

TEMPERATURE_MISTAKES = {
    "multiplied": "the logits are multiplied by the temperature: divide them, "
    "softmax(logits / temperature), so that a low temperature sharpens the distribution.",
    "ignored": "the temperature is ignored: softmax(logits / temperature).",
    "logits": "the output is logits / temperature, not probabilities: apply softmax over the "
    "last dim.",
    "log_softmax": "the output is log-probabilities (log_softmax): return the probabilities, "
    "softmax.",
    "wrong_dim": "the softmax runs over the wrong dim: each row of the vocabulary (the last "
    "dim, dim=-1) must sum to 1.",
}


GREEDY_MISTAKES = {
    "ties": "with temperature 0 a row whose largest logit ties gets a 1 at each tied logit (the "
    "row sums to more than 1), as logits == max gives: greedy is one-hot, a single 1 at the "
    "first of the largest logits, as argmax returns (F.one_hot(logits.argmax(-1), V)).",
    "tie_last": "with temperature 0 and a tie for the largest logit, the 1 is at the last of the "
    "tied logits: greedy takes the first of them, as argmax returns.",
    "global_max": "with temperature 0 the 1 goes where a logit equals the largest of the whole "
    "tensor (logits.max()), not of each row: the other rows are all zeros and sum to 0. Take "
    "the argmax of each row, logits.argmax(dim=-1).",
    "split": "with temperature 0 row {row} is not one-hot: its mass is split ({values}) over "
    "logits that tie or nearly tie for the largest, as a tiny temperature (an epsilon such as "
    "1e-6) does. Temperature 0 is greedy by definition: a single 1 at the argmax (the first of "
    "tied logits), F.one_hot(logits.argmax(-1), V).",
    "overflow": "the probabilities contain {bad}: exp(logits / temperature) overflows to inf "
    "(logits / temperature reach {top:.0f} here, exp overflows above {limit:.0f} in {dtype}) "
    "and inf / inf is NaN. Subtract each row's max before exp (the softmax does not change), "
    "or use F.softmax / torch.softmax, which do it for you.",
}


def greedy_mistake(got: torch.Tensor, x: torch.Tensor) -> Fail | None:
    """The mistake of a temperature-0 answer that is not the argmax's one-hot, if known."""
    g = got.double()
    codes = [
        v
        for v in ("ties", "tie_last", "global_max")
        if torch.isclose(g, temperature64(x, 0, variant=v), atol=1e-6).all()
    ]
    if len(codes) == 1:
        return Fail(GREEDY_MISTAKES[codes[0]], codes[0])
    xd = x.double().flatten(0, -2)
    rows = g.flatten(0, -2)
    near = (xd.amax(-1, keepdim=True) - xd) < 1e-3  # the largest logit and those close to it
    fractional = (rows > 1e-3) & (rows < 1 - 1e-3)
    for r in range(rows.size(0)):
        if fractional[r].any() and (fractional[r] <= near[r]).all():
            values = ", ".join(f"{v:.3g}" for v in rows[r][fractional[r]].tolist())
            return Fail(GREEDY_MISTAKES["split"].format(row=r, values=values), "split")
    return None


def overflow_mistake(got: torch.Tensor, x: torch.Tensor, temperature: float) -> Fail | None:
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
    return Fail(GREEDY_MISTAKES["overflow"].format(**fields), "overflow")


@register
class TemperatureProbsCheck(Exercise):
    id = "07b.temperature_probs"
    title = "temperature"
    points = 1.0

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
            raise Fail(
                "with temperature 0 the output is the argmax's index: return a distribution, a "
                "one-hot row with 1 at the argmax (F.one_hot(logits.argmax(-1), V).to(dtype)).",
                "index_not_one_hot",
            )
        expect_like(got, x.shape, x.dtype)
        if temperature == 0 and torch.isnan(got).any():
            raise Fail(
                "with temperature 0 the output is NaN (logits / 0): temperature 0 means greedy, "
                "a one-hot row with 1 at the argmax of each row.",
                "zero_temperature_nan",
            )
        ref = temperature64(x, temperature)
        if temperature == 0 and not torch.isclose(got.double(), ref, atol=1e-6).all():
            found = greedy_mistake(got, x)
            if found is not None:
                raise found
        found = overflow_mistake(got, x, temperature)
        if found is not None:
            raise found
        mistakes = [
            (lambda v=v: temperature64(x, temperature, variant=v), m, v)
            for v, m in TEMPERATURE_MISTAKES.items()
        ]
        expect_close(got, ref, "the probabilities", mistakes=mistakes)
