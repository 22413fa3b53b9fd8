"""02.causal_mask: a causal mask (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_equal,
    expect_tensor,
    fmt_shape,
    named,
    register,
)
from ...probes import DeviceProbeMixin

CAUSAL_MISTAKES = {
    "mask_inverted": "the mask is True above the diagonal (key > query): that is the 'True = "
    "blocked' convention of nn.MultiheadAttention. Here True = may attend: use tril.",
    "triu": "the mask is upper-triangular: query i may then see the future keys j > i. Row i "
    "(query) must be True for columns j <= i: use tril, not triu.",
    "no_diagonal": "the diagonal is False: a token must be allowed to attend to itself (key <= "
    "query, not key < query); use tril() with diagonal=0.",
}


@register
class CausalMaskCheck(DeviceProbeMixin, Exercise):
    id = "02.causal_mask"
    title = "a causal mask"
    points = 1.0
    axes = ("key", "query")

    def cases(self, gen):
        for T in (4, 1, 7):
            yield Probe(f"T = {T}", args=(T,), runner="device")

    def judge_value(self, probe, out):
        (T,) = probe.args
        got = expect_tensor(out, "the mask")
        ref = torch.ones(T, T, dtype=torch.bool).tril()
        if tuple(got.shape) != (T, T):
            raise Fail(
                f"the mask has shape {fmt_shape(got.shape)}, expected ({T}, {T}).", "wrong_shape"
            )
        if got.dtype != torch.bool:
            if got.is_floating_point() and torch.isinf(got).any():
                raise Fail(
                    "this is an additive float mask (0 and -inf): return booleans, True where "
                    "key <= query (dtype=torch.bool).",
                    "additive_mask",
                )
            raise Fail(
                f"the mask has dtype {got.dtype}: return a boolean tensor (dtype=torch.bool, "
                "or .bool()), True = may attend.",
                "not_bool",
            )
        mistakes = named(CAUSAL_MISTAKES, mask_inverted=~ref, triu=ref.T, no_diagonal=ref.tril(-1))
        otherwise = f"the mask is not True exactly where key <= query; got\n   {got.int().tolist()}"
        expect_equal(got, ref, mistakes, otherwise)
