"""Notebook 02, the stretch: the backward pass of scaled dot-product attention by hand (the
gradients of q, k and v from the output's gradient), against float64 formulas with switches
for the textbook slips."""

from __future__ import annotations

import itertools
import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_finite,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    named,
    randn,
    register,
)
from ...probes import ATTENTION_BUILTINS, AUTOGRAD, mask_with_a_key_per_row, transpose_all

GRAD_MISTAKES = {
    "grad_v_not_transposed": "grad_v = weights @ grad_out: each value v_j was used by every "
    "query with weight w_ij, so grad_v = weightsᵀ @ grad_out (shape (..., T_k, d_v)).",
    "mask_ignored": "the mask is ignored: recompute the weights exactly as the forward pass "
    "did, with the blocked scores at -inf (a blocked key gets weight 0 and no gradient).",
    "no_scale": "the scaling is missing from the backward pass: the scores are q kᵀ / sqrt(d_k), "
    "so the gradient of q kᵀ is the scores' gradient divided by sqrt(d_k) = sqrt({d_k}).",
    "scale_multiplied": "the scores' gradient is multiplied by sqrt(d_k): the forward pass "
    "divided by sqrt(d_k), so the backward pass divides too.",
    "scaled_twice": "the scores' gradient is divided by d_k = sqrt(d_k)² (the scaling applied "
    "twice, or d_k where sqrt(d_k) belongs): divide it by sqrt(d_k) once (d_k = {d_k}).",
    "softmax_diagonal_only": "the softmax's backward uses only the Jacobian's diagonal, "
    "w (1 - w) grad_w: grad_scores = w * (grad_w - sum(grad_w * w, -1)), the backward you "
    "wrote in notebook 01.",
    "softmax_no_sum": "the softmax's backward drops the weighted sum: these are the gradients "
    "of grad_scores = w * grad_w (diag(w) alone, not the Jacobian diag(w) - w wᵀ). Weight j "
    "moves when any score of its row does: grad_scores = w * (grad_w - sum(grad_w * w, -1)), "
    "notebook 01's softmax_backward.",
    "softmax_unweighted_sum": "the softmax's backward subtracts the plain sum of grad_w: the "
    "sum is weighted by the weights, grad_scores = w * (grad_w - sum(grad_w * w, -1)), "
    "notebook 01's softmax_backward.",
    "softmax_skipped": "the softmax's backward is skipped (grad_scores = grad_weights): "
    "grad_scores = w * (grad_w - sum(grad_w * w, -1)), notebook 01's softmax_backward.",
    "softmax_sign": "the softmax's backward adds the weighted sum: grad_scores = w * (grad_w - "
    "sum(grad_w * w, -1)), minus.",
    "grad_weights_from_keys": "grad_weights = grad_out @ kᵀ: the weights multiplied the values, "
    "so grad_weights = grad_out @ vᵀ.",
    "grad_k_not_transposed": "grad_k = grad_scores @ q: key j's gradient collects over the "
    "queries, grad_k = grad_scoresᵀ @ q.",
    "grad_q_from_q": "grad_q uses q: scores = q kᵀ, so grad_q = grad_scores @ k (and grad_k = "
    "grad_scoresᵀ @ q).",
}


def attention_backward64(q, k, v, grad_out, mask=None, *, scale_mode="right", softmax="full",
                         mask_mode="before", grad_w_from="v"):  # fmt: skip
    """Reference: (grad_q, grad_k, grad_v) of sum(out * grad_out), out = softmax(q kᵀ / sqrt(d_k)
    masked) v, in float64; the switches make the known mistakes (grad_w_from "k": grad_out @ kᵀ;
    scale_mode "none", "multiplied", "twice"; softmax "diagonal", "skipped", "sign", "no_sum",
    "unweighted";
    mask_mode "ignored")."""
    q, k, v, g = (t.double() for t in (q, k, v, grad_out))
    root = math.sqrt(q.size(-1))
    scores = q @ k.transpose(-2, -1) / root
    if mask is not None and mask_mode == "before":
        scores = scores.masked_fill(~mask, -math.inf)
    w = scores.softmax(-1)  # (..., T_q, T_k)
    grad_v = w.transpose(-2, -1) @ g
    grad_w = g @ (k if grad_w_from == "k" else v).transpose(-2, -1)
    weighted = (grad_w * w).sum(-1, keepdim=True)
    grad_s = {
        "full": w * (grad_w - weighted),
        "diagonal": w * (1 - w) * grad_w,
        "skipped": grad_w,
        "no_sum": w * grad_w,
        "sign": w * (grad_w + weighted),
        "unweighted": w * (grad_w - grad_w.sum(-1, keepdim=True)),
    }[softmax]
    grad_s = grad_s * {"right": 1 / root, "none": 1.0, "multiplied": root,
                       "twice": 1 / root**2}[scale_mode]  # fmt: skip
    return grad_s @ k, grad_s.transpose(-2, -1) @ q, grad_v


@register
class AttentionBackwardCheck(Exercise):
    id = "02.attention_backward"
    title = "the backward pass of scaled dot-product attention, by hand"
    points = 3.0
    forbid = (*ATTENTION_BUILTINS, *AUTOGRAD)

    def probes(self, gen):
        causal = torch.ones(6, 6, dtype=torch.bool).tril()
        pad = (torch.arange(7) < torch.tensor([[7], [4]]))[:, None, None, :]  # (B, 1, 1, T_k)
        for name, shapes, dtype, mask in [  # shapes: q, k, v (grad_out: (..., T_q, d_v))
            ("q, k, v of shape (3, 4), no mask", ((3, 4),) * 3, torch.float32, None),
            ("batch 2, 5 queries, 7 keys, d_k = 16, d_v = 3",
             ((2, 5, 16), (2, 7, 16), (2, 7, 3)), torch.float32, None),
            ("causal mask (6, 6), batch dims (2, 3), d_k = d_v = 8",
             ((2, 3, 6, 8),) * 3, torch.float32, causal),
            ("padding mask (2, 1, 1, 7), 4 heads, 5 queries, 7 keys, d_k = 6, d_v = 10",
             ((2, 4, 5, 6), (2, 4, 7, 6), (2, 4, 7, 10)), torch.float32, pad),
            ("random mask (2, 1, 5, 6), float64, d_k = d_v = 5",
             ((2, 3, 5, 5), (2, 3, 6, 5), (2, 3, 6, 5)), torch.float64, "random"),
        ]:  # fmt: skip
            q, k, v = (randn(*s, generator=gen, dtype=dtype) for s in shapes)
            grad_out = randn(*q.shape[:-1], v.shape[-1], generator=gen, dtype=dtype)
            if mask == "random":
                mask = mask_with_a_key_per_row(gen, 2, 1, 5, 6)
            yield Probe(name, (q, k, v, grad_out), {} if mask is None else {"mask": mask})

    def explain_error(self, probe, error):
        q, k = probe.args[:2]
        return transpose_all(error, "k", lambda: q @ k.T)

    def judge(self, probe, out):
        q, k, v, g = probe.args
        mask = probe.kwargs.get("mask")
        names = ("grad_q", "grad_k", "grad_v")
        got = expect_tuple(out, 3, "(grad_q, grad_k, grad_v)")
        got = [expect_tensor(t, n) for t, n in zip(got, names)]
        shapes = [tuple(t.shape) for t in (q, k, v)]
        for t, n, shape, x in zip(got, names, shapes, "qkv"):
            if tuple(t.shape) != shape:
                hint = f"the gradient of {x} has {x}'s shape, {fmt_shape(shape)}"
                if n == "grad_v" and tuple(t.shape) == (*q.shape[:-1], v.shape[-1]):
                    raise Fail(GRAD_MISTAKES["grad_v_not_transposed"], "grad_v_not_transposed")
                if n == "grad_k" and tuple(t.shape) == shapes[0]:
                    hint += ": key j's gradient collects over the queries, grad_scoresᵀ @ q"
                raise Fail(f"{n} has shape {fmt_shape(t.shape)}, expected {fmt_shape(shape)}: "
                           f"{hint}.", "wrong_shape")  # fmt: skip
            if t.dtype != q.dtype:
                raise Fail(f"{n} has dtype {t.dtype}, expected {q.dtype} (keep the inputs' "
                           "dtype).", "wrong_dtype")  # fmt: skip
            expect_finite(t, n)
        ref = attention_backward64(q, k, v, g, mask)
        _order(got, ref)
        fields = {"d_k": q.size(-1)}

        def variant(i, **kw):
            return lambda: attention_backward64(q, k, v, g, mask, **kw)[i]

        masked = {"mask_ignored": variant(2, mask_mode="ignored")} if mask is not None else {}
        same_t = q.size(-2) == k.size(-2)
        expect_close(got[2], ref[2], "grad_v", mistakes=named(
            GRAD_MISTAKES, fields, **masked,
            grad_v_not_transposed=(lambda: _w64(q, k, mask) @ g.double()) if same_t else [],
        ))  # fmt: skip
        for i in (0, 1):
            masked = {"mask_ignored": variant(i, mask_mode="ignored")} if mask is not None else {}
            mistakes = named(
                GRAD_MISTAKES,
                fields,
                **masked,
                no_scale=variant(i, scale_mode="none"),
                scale_multiplied=variant(i, scale_mode="multiplied"),
                scaled_twice=variant(i, scale_mode="twice"),
                softmax_diagonal_only=variant(i, softmax="diagonal"),
                softmax_skipped=variant(i, softmax="skipped"),
                softmax_no_sum=variant(i, softmax="no_sum"),
                softmax_sign=variant(i, softmax="sign"),
                softmax_unweighted_sum=variant(i, softmax="unweighted"),
                grad_weights_from_keys=variant(i, grad_w_from="k") if v.shape == k.shape else [],
            )
            if q.shape == k.shape:  # grad_scores @ q: grad_k untransposed, or grad_q from q
                code = "grad_k_not_transposed" if i == 1 else "grad_q_from_q"
                mistakes += named(GRAD_MISTAKES, **{code: lambda: _grad_s64(q, k, v, g, mask)
                                                    @ q.double()})  # fmt: skip
            expect_close(got[i], ref[i], names[i], mistakes=mistakes)


def _order(got, ref) -> None:
    """Name right gradients returned in another order than (grad_q, grad_k, grad_v)."""
    if all(close(a, b.to(a.dtype), 1e-4, 1e-3) for a, b in zip(got, ref)):
        return
    for perm in itertools.permutations(range(3)):
        if all(close(got[i], ref[j].to(got[i].dtype), 1e-4, 1e-3) for i, j in enumerate(perm)):
            said = ", ".join(("grad_q", "grad_k", "grad_v")[j] for j in perm)
            raise Fail(
                f"the gradients are right but come back as ({said}): return (grad_q, grad_k, "
                "grad_v), in the order of the inputs.",
                "swapped_outputs",
            )


def _w64(q, k, mask):
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    return scores.softmax(-1)


def _grad_s64(q, k, v, g, mask):
    w = _w64(q, k, mask)
    grad_w = g.double() @ v.double().transpose(-2, -1)
    return w * (grad_w - (grad_w * w).sum(-1, keepdim=True)) / math.sqrt(q.size(-1))
