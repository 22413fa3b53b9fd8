"""Notebook 02, the stretch: the backward pass of scaled dot-product attention by hand (the
gradients of q, k and v from the output's gradient), against a float64 reference whose edits are
the textbook slips (exercises/02/catalogue.py)."""

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
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ATTENTION_BUILTINS, AUTOGRAD, mask_with_a_key_per_row, transpose_all


def attention_backward64(q, k, v, grad_out, mask=None):
    """Reference: (grad_q, grad_k, grad_v) of sum(out * grad_out), out = softmax(q kᵀ / sqrt(d_k)
    masked) v, in float64. The catalogue's wrong programs are edits of it
    (exercises/02/catalogue.py)."""
    q, k, v, g = (t.double() for t in (q, k, v, grad_out))
    root = math.sqrt(q.size(-1))
    scores = q @ k.transpose(-2, -1) / root
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    w = scores.softmax(-1)  # (..., T_q, T_k)
    grad_v = w.transpose(-2, -1) @ g
    grad_w = g @ v.transpose(-2, -1)
    weighted = (grad_w * w).sum(-1, keepdim=True)
    grad_s = w * (grad_w - weighted) / root
    return grad_s @ k, grad_s.transpose(-2, -1) @ q, grad_v


#: the mistakes in the scores' gradient, asked of grad_q and grad_k
SCORES = ("no_scale", "scale_multiplied", "scaled_twice", "softmax_diagonal_only",
          "softmax_skipped", "softmax_no_sum", "softmax_sign",
          "softmax_unweighted_sum")  # fmt: skip


@register
class AttentionBackwardCheck(Exercise):
    id = "02.attention_backward"
    title = "the backward pass of scaled dot-product attention, by hand"
    points = 3.0
    forbid = (*ATTENTION_BUILTINS, *AUTOGRAD)
    reference64 = staticmethod(attention_backward64)

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
                    raise self.fail("grad_v_not_transposed")
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
        masked = ("mask_ignored",) if mask is not None else ()

        def wrong(i, *codes):
            args, fields = (q, k, v, g, mask), {"d_k": q.size(-1)}
            pick = lambda o: o[i]  # noqa: E731
            return variants(self.mistakes, attention_backward64, args, pick=pick, fields=fields,
                            codes=masked + codes)  # fmt: skip

        same_t = ("grad_v_not_transposed",) if q.size(-2) == k.size(-2) else ()
        expect_close(got[2], ref[2], "grad_v", mistakes=wrong(2, *same_t))
        from_keys = ("grad_weights_from_keys",) if v.shape == k.shape else ()
        for i, untransposed in enumerate(("grad_q_from_q", "grad_k_not_transposed")):
            q_for_k = (untransposed,) if q.shape == k.shape else ()  # grad_scores @ q
            expect_close(got[i], ref[i], names[i], mistakes=wrong(i, *SCORES, *from_keys, *q_for_k))


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
