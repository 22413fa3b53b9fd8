"""02.scaled_dot_product_attention: scaled dot-product attention with a mask (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_like,
    expect_tensor,
    expect_tuple,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ATTENTION_BUILTINS, mask_with_a_key_per_row, transpose_all
from ...properties import STABLE, PropertyMixin
from ...references import attention_rounding64
from ...run.relations import props


def sdpa64(q, k, v, mask=None):
    """The reference, float64: softmax(q kᵀ / sqrt(d_k)) v; mask True = may attend. The
    catalogue's wrong programs are edits of it (exercises/02/catalogue.py)."""
    q, k, v = q.double(), k.double(), v.double()
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


@register
class ScaledDotProductAttentionCheck(PropertyMixin, Exercise):
    id = "02.scaled_dot_product_attention"
    title = "scaled dot-product attention with a mask"
    points = 3.0
    forbid = ATTENTION_BUILTINS
    reference64 = staticmethod(sdpa64)

    def probes(self, gen):
        causal = torch.ones(6, 6, dtype=torch.bool).tril()
        pad = (torch.arange(7) < torch.tensor([[7], [4]]))[:, None, None, :]  # (B, 1, 1, T_k)
        for name, shapes, dtype, mask, relations in [  # shapes: q, k, v
            ("q, k, v of shape (3, 4), no mask", ((3, 4),) * 3, torch.float32, None, ()),
            ("batch 2, 5 queries, 7 keys, d_k = 16, d_v = 3",
             ((2, 5, 16), (2, 7, 16), (2, 7, 3)), torch.float32, None, ()),
            ("causal mask (6, 6) broadcast over (2, 3) batch dims, d_k = d_v = 8",
             ((2, 3, 6, 8),) * 3, torch.float32, causal, ("batch",)),
            ("padding mask (2, 1, 1, 7), 4 heads, 5 queries, 7 keys, d_k = 6, d_v = 10",
             ((2, 4, 5, 6), (2, 4, 7, 6), (2, 4, 7, 10)), torch.float32, pad,
             ("masked", "batch", "meta")),
            ("random mask (2, 1, 5, 6), float64, d_k = d_v = 5",
             ((2, 3, 5, 5), (2, 3, 6, 5), (2, 3, 6, 5)), torch.float64, "random", ()),
        ]:  # fmt: skip
            args = tuple(randn(*s, generator=gen, dtype=dtype) for s in shapes)
            if mask == "random":
                mask = mask_with_a_key_per_row(gen, 2, 1, 5, 6)
            probe = Probe(name, args, {} if mask is None else {"mask": mask})
            yield props(probe, *relations) if relations else probe
        yield Probe(
            "(2, 4, 4) times 30: large scores (exp overflows unless the max is subtracted)",
            args=tuple(30 * randn(2, 4, 4, generator=gen) for _ in range(3)),
        )

    def explain_error(self, probe, error):
        q, k = probe.args[:2]
        return transpose_all(error, "k", lambda: q @ k.T)

    def judge_value(self, probe, out):
        q, k, v = probe.args
        mask = probe.kwargs.get("mask")
        d_k, d_v, T_q, T_k = q.size(-1), v.size(-1), q.size(-2), k.size(-2)
        ref_out, ref_w = sdpa64(q, k, v, mask)
        # what float32 rounding may change: much more than the fixed tolerances where large
        # scores are nearly tied (the "times 30" case)
        round_out, round_w = attention_rounding64(q, k, v, mask, q.dtype)
        got_out, got_w = expect_tuple(out, 2, "(out, weights)")
        got_out, got_w = expect_tensor(got_out, "out"), expect_tensor(got_w, "weights")
        shapes = (tuple(got_out.shape), tuple(got_w.shape))
        if shapes == (tuple(ref_w.shape), tuple(ref_out.shape)) != shapes[::-1]:
            raise self.fail("swapped_outputs")
        expect_like(got_w, ref_w.shape, q.dtype, "weights")
        if d_k != d_v and shapes[0] == tuple(ref_out.shape[:-1]) + (d_k,):
            seen = f"out has last dimension d_k = {d_k}, expected d_v = {d_v}"
            raise self.fail("weights_times_keys", seen=seen)
        expect_like(got_out, ref_out.shape, q.dtype, "out")
        props = {
            "weights": True,
            "hint": STABLE["softmax"],
            "factors": {"sqrt(d_k)": 1 / math.sqrt(d_k), "1 / sqrt(d_k)": math.sqrt(d_k)},
        }
        also = ", which here is also the number of queries T_q (q.size(-2))"
        fields = {"d_k": d_k, "d_v": d_v, "T_k": T_k, "T_q_too": also if T_q == T_k else ""}
        fields["seen"] = "out = weights @ k"

        def wrong(pick, **kw):
            return variants(self.mistakes, sdpa64, (q, k, v, mask), pick=pick, fields=fields, **kw)

        try:
            weights = wrong(lambda o: o[1])
            expect_close(got_w, ref_w, "weights", mistakes=weights, rounding=round_w, **props)
        except Fail as fail:
            if fail.code == "unstable_softmax" and mask is not None:
                raise self.fail("mask_multiplied_nan", found=fail) from None
            raise
        # the weights are right: the mistakes that leave them so
        same_weights = lambda o: close(o[1], ref_w, 0.0, 0.0)  # noqa: E731
        outs = wrong(lambda o: o[0], only=same_weights)
        expect_close(got_out, ref_out, "out", mistakes=outs, rounding=round_out)
