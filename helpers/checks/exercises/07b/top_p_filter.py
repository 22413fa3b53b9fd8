"""07b.top_p_filter: top-p (nucleus) filtering (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Probe,
    randn,
    register,
)
from ...mistakes import variants
from .filters import judge_filter
from .reference import far_from_p, top_p64


def _logits_far_from_p(gen, shape, p, scale=2.0):
    """Random logits whose cumulative probabilities all keep away from p."""
    while True:
        x = randn(*shape, generator=gen) * scale
        if far_from_p(x, p):
            return x


@register
class TopPFilterCheck(Exercise):
    id = "07b.top_p_filter"
    title = "top-p (nucleus) filtering"
    points = 2.0
    reference64 = staticmethod(top_p64)

    def probes(self, gen):
        # the notebook's example, and the same shuffled with 2 added to the logits (the same
        # probabilities): each known mistake keeps another set here
        x = torch.tensor([[math.log(q) for q in (0.5, 0.3, 0.15, 0.05)],
                          [math.log(q) + 2 for q in (0.05, 0.3, 0.5, 0.15)]])  # fmt: skip
        yield Probe("probabilities [0.5, 0.3, 0.15, 0.05] (and shuffled), p = 0.7", args=(x, 0.7))
        yield Probe("random (4, 10), p = 0.9", args=(_logits_far_from_p(gen, (4, 10), 0.9), 0.9))
        w = _logits_far_from_p(gen, (2, 3, 8), 0.5)
        yield Probe("random (2, 3, 8), p = 0.5", args=(w, 0.5))
        y = _logits_far_from_p(gen, (3, 6), 0.05, scale=1.0)
        yield Probe("p = 0.05, below the top probability: the top token alone", args=(y, 0.05))
        yield Probe("p = 1.0: every token", args=(randn(2, 7, generator=gen), 1.0))
        z = _logits_far_from_p(gen, (2, 9), 0.8).double()
        yield Probe("random (2, 9), float64, p = 0.8", args=(z, 0.8))
        # powers of 2 in float64: the softmax and the mass before the second token are exact
        # (float32 logits log(q) are not: the reference would see 0.5 + 3e-9 where float32
        # rounds to 0.5)
        exact = torch.tensor([[math.log(q) for q in (0.5, 0.25, 0.125, 0.125)],
                              [math.log(q) for q in (0.125, 0.5, 0.125, 0.25)]],
                             dtype=torch.float64)  # fmt: skip
        yield Probe(EXACT_P_CASE, args=(exact, 0.5))

    def judge(self, probe, out):
        x, p = probe.args
        wrong = variants(self.mistakes, top_p64, (x, p))
        judge_filter(out, x, top_p64(x, p).isfinite(), wrong, self.mistakes)


EXACT_P_CASE = (
    "float64 probabilities [0.5, 0.25, 0.125, 0.125] (exact in binary), p = 0.5: the mass "
    "before the second token is exactly p"
)
