"""02.causal_mask: a causal mask (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, Probe, expect_equal, expect_tensor, fmt_shape, register
from ...mistakes import variants
from ...probes import DeviceProbeMixin


def causal64(T):
    """The reference: (T, T), True where key <= query (the catalogue's programs edit it)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


@register
class CausalMaskCheck(DeviceProbeMixin, Exercise):
    id = "02.causal_mask"
    title = "a causal mask"
    points = 1.0
    axes = ("key", "query")
    reference64 = staticmethod(causal64)

    def cases(self, gen):
        for T in (4, 1, 7):
            yield Probe(f"T = {T}", args=(T,), runner="device")

    def judge_value(self, probe, out):
        (T,) = probe.args
        got = expect_tensor(out, "the mask")
        ref = causal64(T)
        if tuple(got.shape) != (T, T):
            raise self.fail("wrong_shape", shape=fmt_shape(got.shape), T=T)
        if got.dtype != torch.bool:
            additive = got.is_floating_point() and torch.isinf(got).any()
            raise self.fail("additive_mask" if additive else "not_bool", dtype=got.dtype)
        mistakes = variants(self.mistakes, causal64, (T,))
        otherwise = f"the mask is not True exactly where key <= query; got\n   {got.int().tolist()}"
        expect_equal(got, ref, mistakes, otherwise)
