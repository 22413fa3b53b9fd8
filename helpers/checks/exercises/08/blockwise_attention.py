"""Notebook 08, part 2: blockwise attention with an online softmax.

The reference is softmax attention written out in float64; the known mistakes
(exercises/08/catalogue.py) are edits of blockwise64, the online softmax in float64."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ATTENTION_BUILTINS, SOFTMAX_OPS, too_large
from ...properties import STABLE, PropertyMixin
from ...references import attention64, attention_rounding64
from ...run.forbid import OUT_OF_TORCH
from ...run.relations import props
from .reference import fit_scale, rows_scaled, scale_names


def blockwise64(q, k, v, block_size: int) -> torch.Tensor:
    """Online-softmax attention in float64. The catalogue's wrong programs are edits of it
    (exercises/08/catalogue.py)."""
    q, k, v = q.double(), k.double(), v.double()
    s_q = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=torch.float64, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=torch.float64, device=q.device)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start : start + block_size, :], v[..., start : start + block_size, :]
        s = q @ kb.transpose(-2, -1) * s_q
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p @ vb
        m = m_new
    return acc / l


# the large-score cases: (message, code) when the output is not finite
LARGE = {
    "far_apart": (
        "the result contains NaN or inf when the scores are far apart: exp overflows. Subtract "
        "the running max, m_new = max(m_old, the block's max), so that every exp(s - m_new) "
        "and the correction exp(m_old - m_new) is at most 1.",
        "overflow",
    ),
    "all_negative": (
        "the result contains NaN or inf when every score is very negative (about -128): "
        + STABLE["online_softmax"],
        "running_max_from_zero",
    ),
    "rows_apart": (
        "the result contains NaN or inf when one batch's scores are near +98 and another's near "
        "-98: take the running max per query row, s.amax(-1, keepdim=True), not over the whole "
        "block (s.max()): exp(-98 - 98) underflows to 0 and the row divides 0 by 0.",
        "max_not_per_row",
    ),
}


#: NaN or inf on ordinary scores: one of several steps, not told apart by the output
NOT_FINITE = (
    "The expected values are finite: look for the step that makes it, such as a running max "
    "that starts at 0 (it starts at -inf), an exp of a positive number (exp(s - m_new) and the "
    "correction exp(m_old - m_new) are at most 1), a division by a running sum that is still 0, "
    "or a log."
)


@register
class BlockwiseAttentionCheck(PropertyMixin, Exercise):
    id = "08.blockwise_attention"
    title = "exact attention block by block, with an online softmax"
    points = 3.0
    reference64 = staticmethod(blockwise64)
    forbid = (
        *ATTENTION_BUILTINS,
        *SOFTMAX_OPS,
        "aten.logsumexp",
        "torch.softmax",
        "torch.nn.functional.softmax",
        "torch.Tensor.softmax",
        "torch.logsumexp",
        "torch.Tensor.logsumexp",
        *OUT_OF_TORCH,  # the rule on the largest tensor holds for work done outside torch too
    )

    def probes(self, gen):
        def qkv(*shape, d_v=None, dtype=torch.float32, spread=1.0):
            *b, T_q, T_k, d = shape
            return (
                spread * randn(*b, T_q, d, dtype=dtype, generator=gen),
                spread * randn(*b, T_k, d, dtype=dtype, generator=gen),
                randn(*b, T_k, d_v or d, dtype=dtype, generator=gen),
            )

        for name, bs, args in (
            ("q, k, v (1, 8, 4), block_size = 8 (one block)", 8, qkv(1, 8, 8, 4)),
            ("(2, 32, 8), block_size = 8, large scores (the max changes between blocks)", 8,
             qkv(2, 32, 32, 8, spread=3.0)),
            ("T_q = 5, T_k = 13, block_size = 4 (the last block is shorter), d_v = 3", 4,
             qkv(5, 13, 6, d_v=3, spread=2.0)),
            ("heads (2, 2, 64, 8), block_size = 16: no (T, T) matrix allowed", 16,
             qkv(2, 2, 64, 64, 8, spread=2.0)),
            ("(1, 24, 4) float64, block_size = 5", 5,
             qkv(1, 24, 24, 4, dtype=torch.float64, spread=3.0)),
        ):  # fmt: skip
            yield Probe(name, runner="sized", args=args, kwargs={"block_size": bs})
        # scores near +98 and -98 in the first block, near -98 in the second: exp overflows
        # float32 (above ~88) unless the block's max is subtracted and the running max only grows
        q, k, v = qkv(1, 4, 8, 4, spread=0.1)
        sign = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0])[:, None]  # (T_k, 1)
        yield Probe(
            "(1, 4, 4) and 8 keys, block_size = 4, float32, scores near +98 and -98 in the "
            "first block and near -98 in the second",
            runner="sized",
            args=(q + 7.0, k + 7.0 * sign, v),
            kwargs={"block_size": 4},
            info={"large": "far_apart"},
        )
        # scores near +98 in batch 0, near -98 in batch 1: one max over the whole block (s.max())
        # leaves exp(-98 - 98) = 0 in every row of batch 1, 0 / 0 (found by a tester who had not
        # read this check)
        q, k, v = qkv(2, 4, 8, 4, spread=0.1)
        sign = torch.tensor([1.0, -1.0])[:, None, None]  # (B, 1, 1)
        yield Probe(
            "(2, 4, 4), 8 keys, block_size = 4, float32, scores near +98 in batch 0 and near -98 "
            "in batch 1",
            runner="sized",
            args=(q + 7.0, k + 7.0 * sign, v),
            kwargs={"block_size": 4},
            info={"large": "rows_apart"},
        )
        # every score near -128: exp(s - 0) underflows float32 unless the running max is real
        q, k, v = qkv(2, 3, 8, 4, spread=0.1)
        yield Probe(
            "(2, 3, 4), 8 keys, block_size = 4, float32, every score near -128",
            runner="sized",
            args=(q + 8.0, k - 8.0, v),
            kwargs={"block_size": 4},
            info={"large": "all_negative"},
        )
        q, k, v = qkv(2, 5, 9, 4)
        yield props(
            Probe("(2, 5, 4), 9 keys, block_size = 4", args=(q, k, v), kwargs={"block_size": 4}),
            "batch",
            "meta",
        )

    def judge_value(self, probe, out):
        q, k, v = probe.args
        bs = probe.kwargs["block_size"]
        out = out if probe.runner == "sized" else {"out": out, "largest": None}
        if not isinstance(out, dict) or "out" not in out:
            raise Fail("internal: unexpected runner output.")
        got = expect_tensor(out["out"])
        expect_like(got, (*q.shape[:-1], v.shape[-1]), q.dtype)
        if not torch.isfinite(got).all() and probe.info.get("large") in LARGE:
            raise Fail(LARGE[probe.info["large"]][0], LARGE[probe.info["large"]][1])
        expect_finite(got, hint=NOT_FINITE)
        ref = attention64(q, k, v)[0]

        fields = {"a": 1, "b": k.shape[-2] - 1}  # keys_left_out's
        mistakes = variants(self.mistakes, blockwise64, (q, k, v, bs), fields=fields)
        try:
            rounding = attention_rounding64(q, k, v, dtype=q.dtype)[0]
            expect_close(got, ref, mistakes=mistakes, hint=STABLE["softmax"], rounding=rounding)
        except Fail as fail:
            if fail.code:
                raise
            make = lambda c: attention64(q, k, v, scale=math.sqrt(q.shape[-1]) / c)[0]  # noqa: E731
            found = fit_scale(got, make, scale_names(q.shape[-1])) or rows_scaled(got, ref)
            raise found or fail from None
        B = q.numel() // (q.shape[-1] * q.shape[-2])
        full = B * q.shape[-2] * k.shape[-2]
        inputs = max(q.numel(), k.numel(), v.numel(), got.numel())
        if k.shape[-2] > bs and full > inputs:
            too_large(
                out,
                full,
                f"as large as the whole score matrix {fmt_shape((*q.shape[:-1], k.shape[-2]))}: "
                f"compute the scores of one block of {bs} keys at a time.",
                "full_score_matrix",
            )
