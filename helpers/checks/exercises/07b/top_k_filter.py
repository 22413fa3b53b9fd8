"""07b.top_k_filter: top-k filtering (its check)."""

from __future__ import annotations

import re

import torch

from ...framework import (
    Exercise,
    Probe,
    randn,
    register,
)
from ...mistakes import variants
from .filters import judge_filter
from .reference import top_k64


@register
class TopKFilterCheck(Exercise):
    id = "07b.top_k_filter"
    title = "top-k filtering"
    points = 1.0
    reference64 = staticmethod(top_k64)

    def probes(self, gen):
        yield Probe("logits [2, -1, 0.5, 3, 0], k = 2",
                    args=(torch.tensor([[2.0, -1.0, 0.5, 3.0, 0.0]]), 2))  # fmt: skip
        yield Probe("random (4, 10), k = 3", args=(randn(4, 10, generator=gen), 3))
        yield Probe("random (2, 3, 7), k = 1", args=(randn(2, 3, 7, generator=gen), 1))
        ties = torch.tensor([[1.0, 2.0, 2.0, 0.0, 3.0], [0.5, 0.5, 0.5, -1.0, 2.0]])
        yield Probe("ties at the k-th largest, k = 2", args=(ties, 2))
        yield Probe("k = 10 larger than the vocabulary (6)", args=(randn(3, 6, generator=gen), 10))
        yield Probe("random (2, 9), float64, k = 4",
                    args=(randn(2, 9, dtype=torch.float64, generator=gen), 4))  # fmt: skip
        yield Probe("random (5, 5), k = 2 (as many rows as logits)",
                    args=(randn(5, 5, generator=gen), 2))  # fmt: skip

    def explain_error(self, probe, error):
        x, k = probe.args
        sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
                          error)  # fmt: skip
        if x.dim() > 1 and sizes and {int(n) for n in sizes.groups()} == {x.size(-1), x.size(-2)}:
            return self.fail("not_column")
        if k > x.size(-1) and ("out of range" in error or "selected index" in error):
            return self.fail("k_larger_than_vocab", k=k, V=x.size(-1))
        return None

    def judge(self, probe, out):
        x, k = probe.args
        wrong = variants(self.mistakes, top_k64, (x, k))
        judge_filter(out, x, top_k64(x, k).isfinite(), wrong, self.mistakes)
