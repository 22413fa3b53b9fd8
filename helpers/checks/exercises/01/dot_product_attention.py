"""01.dot_product_attention: attention with no weights (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    expect_tuple,
    named,
    randn,
    register,
)
from ...probes import ATTENTION_BUILTINS, transpose_all
from ...references import attention64

ATTENTION_MISTAKES = {
    "softmax_over_columns": "the columns of weights sum to 1, not the rows: take the softmax "
    "over the last dim (each query's weights over all keys).",
    "scaled": "the scores are divided by sqrt(d): this notebook's attention has no scaling "
    "(that is notebook 02).",
    "no_softmax": "weights are the raw scores: apply softmax over the last dim.",
    "weights_transposed": "z uses the transposed weights: z = weights @ x, row i mixes the "
    "inputs with the weights of query i.",
    "xT_times_weights": "z is x^T @ weights: compute weights @ x.",
}


@register
class DotProductAttentionCheck(Exercise):
    id = "01.dot_product_attention"
    title = "attention with no weights"
    points = 2.0
    forbid = ATTENTION_BUILTINS

    def probes(self, gen):
        worked = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
        yield Probe("the worked example x0=[1,0], x1=[0.8,0.6], x2=[0,1]", args=(worked,))
        yield Probe("random (5, 3)", args=(randn(5, 3, generator=gen),))
        yield Probe("batch (2, 4, 6)", args=(randn(2, 4, 6, generator=gen),))
        yield Probe(
            "batch dims (2, 3, 5, 4), float64",
            args=(randn(2, 3, 5, 4, dtype=torch.float64, generator=gen),),
        )

    def explain_error(self, probe, error):
        x = probe.args[0]
        return transpose_all(error, "x", lambda: x @ x.T)

    def judge(self, probe, out):
        (x,) = probe.args
        *batch, T, d = x.shape
        z, w = expect_tuple(out, 2, "(z, weights)")
        z = expect_tensor(z, "z")
        w = expect_tensor(w, "weights")
        if tuple(z.shape) == (*batch, T, T) and tuple(w.shape) == (*batch, T, d) and T != d:
            raise Fail(
                "the outputs are in the wrong order: return (z, weights).", "swapped_outputs"
            )
        expect_like(w, (*batch, T, T), x.dtype, "weights")
        expect_like(z, (*batch, T, d), x.dtype, "z")
        expect_finite(w, "weights")
        x64 = x.double()
        ref_z, ref_w = attention64(x, x, x, scale=1.0)  # no scaling in this notebook
        expect_close(
            w,
            ref_w,
            "weights",
            mistakes=named(
                ATTENTION_MISTAKES,
                softmax_over_columns=lambda: attention64(x, x, x, scale=1.0, dim=-2)[1],
                scaled=lambda: attention64(x, x, x)[1],
                no_softmax=lambda: x64 @ x64.transpose(-2, -1),
            ),
            weights=True,
        )
        expect_close(
            z,
            ref_z,
            "z",
            mistakes=named(
                ATTENTION_MISTAKES,
                weights_transposed=lambda: ref_w.transpose(-2, -1) @ x64,
                xT_times_weights=lambda: x64.transpose(-2, -1) @ ref_w,
            ),
        )
