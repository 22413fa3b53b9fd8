"""02.scaled_dot_product_attention: scaled dot-product attention with a mask (its check)."""

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
    expect_tuple,
    named,
    randn,
    register,
)
from ...probes import ATTENTION_BUILTINS, mask_with_a_key_per_row, transpose_all
from ...properties import STABLE, PropertyMixin
from ...references import attention64, attention_rounding64
from ...run.relations import props

SDPA_MISTAKES = {
    "scale_by_d_v": "the scores are divided by sqrt(d_v) = sqrt({d_v}): scale by sqrt(d_k) = "
    "sqrt({d_k}), the size of the queries and keys (q.size(-1)).",
    "no_scale": "the scores are not scaled: divide q @ kᵀ by sqrt(d_k).",
    "scale_by_d_k": "the scores are divided by d_k: divide by sqrt(d_k) (math.sqrt).",
    "scale_multiplied": "the scores are multiplied by sqrt(d_k): divide by it.",
    "softmax_over_queries": "softmax is taken over the queries (dim=-2): each query's weights "
    "over the keys must sum to 1, so use dim=-1.",
    "scaled_after_softmax": "the weights are divided by sqrt(d_k) after softmax, so the rows no "
    "longer sum to 1: divide the scores q @ kᵀ before softmax.",
    "scale_by_T_k": "the scores are divided by sqrt(T_k) = sqrt({T_k}), the number of keys"
    "{T_q_too}: scale by sqrt(d_k) = q.size(-1), the size of one query or key.",
    "mask_inverted": "the mask is inverted: True means *may attend*, so fill the scores where "
    "the mask is False (masked_fill(~mask, -inf)). nn.MultiheadAttention uses the opposite "
    "convention; this series does not.",
    "mask_ignored": "the mask is ignored: blocked keys still get weight. Fill the scores where "
    "mask is False with -inf before softmax.",
    "mask_after_softmax": "the mask is applied after softmax: blocked keys get 0 but the rows no "
    "longer sum to 1. Fill the scores with -inf before softmax instead.",
    "blocked_scores_zero": "the blocked scores are set to 0 (the mask multiplied into the "
    "scores, or masked_fill(~mask, 0)): exp(0) = 1, so blocked keys still get weight. Fill "
    "them with -inf: scores.masked_fill(~mask, float('-inf')).",
    "mask_added": "the mask is added to the scores (a boolean mask adds 1 where True): fill the "
    "blocked scores with -inf, scores.masked_fill(~mask, float('-inf')).",
    "weights_times_keys": "out = weights @ k: the weights must multiply the values v, not the "
    "keys k.",
    "weights_transposed": "out uses the transposed weights: out = weights @ v.",
}


#: the mask mistakes as attention64's mask_mode
MASK_MODES = {
    "mask_ignored": "ignored",
    "mask_after_softmax": "after",
    "blocked_scores_zero": "zero",
    "mask_added": "added",
}


@register
class ScaledDotProductAttentionCheck(PropertyMixin, Exercise):
    id = "02.scaled_dot_product_attention"
    title = "scaled dot-product attention with a mask"
    points = 3.0
    forbid = ATTENTION_BUILTINS

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
        ref_out, ref_w = attention64(q, k, v, mask)
        # what float32 rounding may change: much more than the fixed tolerances where large
        # scores are nearly tied (the "times 30" case)
        round_out, round_w = attention_rounding64(q, k, v, mask, q.dtype)
        got_out, got_w = expect_tuple(out, 2, "(out, weights)")
        got_out, got_w = expect_tensor(got_out, "out"), expect_tensor(got_w, "weights")
        shapes = (tuple(got_out.shape), tuple(got_w.shape))
        if shapes == (tuple(ref_w.shape), tuple(ref_out.shape)) != shapes[::-1]:
            raise Fail(
                "the outputs are in the wrong order: return (out, weights).", "swapped_outputs"
            )
        expect_like(got_w, ref_w.shape, q.dtype, "weights")
        if d_k != d_v and shapes[0] == tuple(ref_out.shape[:-1]) + (d_k,):
            raise Fail(
                f"out has last dimension d_k = {d_k}, expected d_v = {d_v}: the weights "
                "must multiply the values v, not the keys k.",
                "weights_times_keys",
            )
        expect_like(got_out, ref_out.shape, q.dtype, "out")

        def variant(**kw):
            return lambda: attention64(q, k, v, mask, **kw)[1]

        props = {
            "weights": True,
            "hint": STABLE["softmax"],
            "factors": {"sqrt(d_k)": 1 / math.sqrt(d_k), "1 / sqrt(d_k)": math.sqrt(d_k)},
        }
        also = ", which here is also the number of queries T_q (q.size(-2))"
        fields = {"d_k": d_k, "d_v": d_v, "T_k": T_k, "T_q_too": also if T_q == T_k else ""}
        mistakes = named(
            SDPA_MISTAKES,
            fields,
            scale_by_d_v=variant(scale=math.sqrt(d_v)) if d_v != d_k else [],
            no_scale=variant(scale=1.0),
            scale_by_d_k=variant(scale=float(d_k)),
            scale_multiplied=variant(scale=1 / math.sqrt(d_k)),
            softmax_over_queries=variant(dim=-2),
            scaled_after_softmax=lambda: attention64(q, k, v, mask, scale=1.0)[1] / math.sqrt(d_k),
            scale_by_T_k=variant(scale=math.sqrt(T_k)) if T_k != d_k else [],
        )
        masked = {
            "mask_inverted": [
                variant(mask_mode="inverted"),
                variant(mask_mode="inverted", fill=-1e9),
            ],
            **{code: variant(mask_mode=mode) for code, mode in MASK_MODES.items()},
        }
        mistakes += named(SDPA_MISTAKES, **masked) if mask is not None else []
        try:
            expect_close(got_w, ref_w, "weights", mistakes=mistakes, rounding=round_w, **props)
        except Fail as fail:
            if fail.code == "unstable_softmax" and mask is not None:
                raise Fail(
                    f"{fail} A NaN often comes from 0 * -inf (multiplying the mask into "
                    "the scores): use scores.masked_fill(~mask, float('-inf')).",
                    "mask_multiplied_nan",
                ) from None
            raise
        out_mistakes = named(
            SDPA_MISTAKES,
            weights_times_keys=(lambda: ref_w @ k.double()) if d_v == d_k else [],
            weights_transposed=(lambda: ref_w.transpose(-2, -1) @ v.double()) if T_q == T_k else [],
        )
        expect_close(got_out, ref_out, "out", mistakes=out_mistakes, rounding=round_out)
