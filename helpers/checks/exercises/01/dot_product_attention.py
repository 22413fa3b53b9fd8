"""01.dot_product_attention: attention with no weights (its check)."""

from __future__ import annotations

import math  # noqa: F401 (the catalogue's wrong programs use it)

import torch

from ...framework import (
    Exercise,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    expect_tuple,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ATTENTION_BUILTINS, transpose_all


def dot_attention64(x):
    """The reference, float64: softmax(x xᵀ) x, no scaling in this notebook. The catalogue's
    wrong programs are edits of it (exercises/01/catalogue.py)."""
    x = x.double()
    scores = x @ x.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights


@register
class DotProductAttentionCheck(Exercise):
    id = "01.dot_product_attention"
    title = "attention with no weights"
    points = 2.0
    forbid = ATTENTION_BUILTINS
    reference64 = staticmethod(dot_attention64)

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
            raise self.fail("swapped_outputs")
        expect_like(w, (*batch, T, T), x.dtype, "weights")
        expect_like(z, (*batch, T, d), x.dtype, "z")
        expect_finite(w, "weights")
        ref_z, ref_w = dot_attention64(x)
        weights = ("softmax_over_columns", "scaled", "no_softmax")
        wrong = variants(self.mistakes, dot_attention64, (x,), pick=lambda o: o[1], codes=weights)
        expect_close(w, ref_w, "weights", mistakes=wrong, weights=True)
        outs = ("weights_transposed",)
        wrong = variants(self.mistakes, dot_attention64, (x,), pick=lambda o: o[0], codes=outs)
        expect_close(z, ref_z, "z", mistakes=wrong)
