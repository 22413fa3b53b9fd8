"""08.linear_attention: linear attention with the elu + 1 feature map (its check)."""

from __future__ import annotations

import itertools
import math

import torch
import torch.nn.functional as F

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    named,
    randn,
    register,
)
from ...probes import ATTENTION_BUILTINS, too_large
from ...properties import PropertyMixin
from ...references import attention64
from ...run.relations import props
from .reference import rows_scaled


def elu1(x: torch.Tensor) -> torch.Tensor:
    return F.elu(x) + 1


def linear_attention64(
    q, k, v, causal=False, *, phi_q=elu1, phi_k=elu1, normalize=True, causal_num=None,
    causal_den=None,
) -> torch.Tensor:  # fmt: skip
    """The quadratic form: A = phi(q) phi(k)^T (tril when causal), out = A v / A.sum(-1)."""
    q, k, v = q.double(), k.double(), v.double()
    A = phi_q(q) @ phi_k(k).transpose(-2, -1)  # (..., T_q, T_k)
    A_num = A.tril() if (causal if causal_num is None else causal_num) else A
    A_den = A.tril() if (causal if causal_den is None else causal_den) else A
    out = A_num @ v
    return out / A_den.sum(-1, keepdim=True) if normalize else out


def cumsum_form64(q, k, v, s_dim: int | None = -3, z_dim: int | None = -2) -> torch.Tensor:
    """Causal linear attention by cumulative sums over ``s_dim`` and ``z_dim`` (None: none)."""
    pq, pk, v = elu1(q.double()), elu1(k.double()), v.double()
    S = pk[..., :, None] * v[..., None, :]  # (..., T, d_k, d_v)
    S = S if s_dim is None else S.cumsum(s_dim)
    z = pk if z_dim is None else pk.cumsum(z_dim)  # (..., T, d_k)
    return (pq[..., None, :] @ S).squeeze(-2) / (pq * z).sum(-1, keepdim=True)


# the feature maps a learner writes instead of elu(x) + 1: (words, function, code)
FEATURE_MAPS = [
    ("exp", torch.exp, "exp_feature_map"),
    ("elu(x) without + 1 (it can be negative)", F.elu, "elu_without_plus_1"),
    ("relu (all of a query's weights can be 0)", F.relu, "relu_feature_map"),
    ("relu (all of a query's weights can be 0)", lambda x: F.relu(x) + 1e-6, "relu_feature_map"),
    ("the identity (no feature map)", lambda x: x, "no_feature_map"),
    ("elu(x) - 1", lambda x: F.elu(x) - 1, "wrong_feature_map"),
    ("x + 1 (elu left out)", lambda x: x + 1, "wrong_feature_map"),
    ("elu(x) + 2", lambda x: F.elu(x) + 2, "wrong_feature_map"),
    ("a softmax over the features", lambda x: x.softmax(-1), "softmax_feature_map"),
]  # fmt: skip


LINEAR_MISTAKES = {
    "not_normalized": "the output is not normalized: divide phi(q_i)·S by phi(q_i)·z, where z "
    "is the sum of phi(k_j) (the weights of each query must sum to 1, as in softmax attention).",
    "feature_map_on_v": "the feature map is applied to v too: only q and k go through phi(x) = "
    "elu(x) + 1; the values are averaged as they are.",
    "q_scaled": "q is divided by sqrt(d_k): linear attention has no scaling, phi(x) = elu(x) + 1 "
    "goes on q and k as they are (the scale belongs to softmax attention).",
    "scaled_before_feature_map": "q and k are scaled before the feature map: linear attention "
    "applies phi(x) = elu(x) + 1 to q and k as they are.",
    "softmax_attention": "this is softmax attention: write linear attention with the feature "
    "map phi(x) = elu(x) + 1.",
    "causal_ignored": "the `causal` flag is ignored: with causal=True output i only sums over "
    "keys j <= i (cumulative sums over the sequence, torch.cumsum(..., dim=-3) for S and "
    "dim=-2 for z).",
    "denominator_not_causal": "the numerator is causal but the denominator sums over all keys: "
    "use the cumulative sum of phi(k_j) too.",
    "numerator_not_causal": "the denominator is causal but the numerator sums over all keys: "
    "use the cumulative sum of phi(k_j) v_jᵀ too.",
}


def feature_map_mistakes(va) -> list[tuple]:
    """The wrong feature maps, on q and k, on q only and on k only."""
    table = []
    for words, phi, code in FEATURE_MAPS:
        for on, kw in (("", {"phi_q": phi, "phi_k": phi}), (" of q", {"phi_q": phi}),
                       (" of k", {"phi_k": phi})):  # fmt: skip
            msg = f"the feature map{on} is {words}: use phi(x) = elu(x) + 1 on q and k."
            table.append((va(**kw), msg, code))
    return table


def cumsum_mistakes(q, k, v) -> list[tuple]:
    """Causal linear attention with the cumulative sums over another dim, or left out."""
    table = []
    for s_dim, z_dim in itertools.product((-3, -4, -2, -1, None), (-2, -3, -1, None)):
        said = [
            f"{n} over dim={d}" if d else f"{n} not at all" for n, d in (("S", s_dim), ("z", z_dim))
        ]
        message = (
            f"the cumulative sums are wrong ({' and '.join(said)}): both run over the sequence, "
            "torch.cumsum(..., dim=-3) for S (..., T, d_k, d_v) and dim=-2 for z (..., T, d_k)."
        )
        code = "cumsum_missing" if None in (s_dim, z_dim) else "cumsum_wrong_dim"
        if (s_dim, z_dim) != (-3, -2):
            table.append((lambda s=s_dim, z=z_dim: cumsum_form64(q, k, v, s, z), message, code))
    return table


@register
class LinearAttentionCheck(PropertyMixin, Exercise):
    id = "08.linear_attention"
    title = "linear attention with the elu + 1 feature map"
    points = 2.0
    forbid = ATTENTION_BUILTINS

    def probes(self, gen):
        def qkv(*shape, d_v=None, T_k=None, scale=1.0, dtype=torch.float32):
            *b, T, d = shape
            q = scale * randn(*b, T, d, dtype=dtype, generator=gen)
            k = scale * randn(*b, T_k or T, d, dtype=dtype, generator=gen)
            return q, k, scale * randn(*b, T_k or T, d_v or d, dtype=dtype, generator=gen)

        yield Probe("q, k, v (2, 5, 4)", args=qkv(2, 5, 4))
        yield Probe("causal=True, (2, 6, 4)", args=qkv(2, 6, 4), kwargs={"causal": True})
        yield Probe("T_q = 3 != T_k = 7, d_k = 4, d_v = 5", args=qkv(3, 4, T_k=7, d_v=5))
        yield Probe(
            "heads (2, 3, 8, 6), causal=True", args=qkv(2, 3, 8, 6, d_v=2), kwargs={"causal": True}
        )
        yield Probe(
            "(1, 9, 4) * 3, causal=False, float64",
            args=qkv(1, 9, 4, scale=3.0, dtype=torch.float64),
            kwargs={"causal": False},
        )
        yield Probe(
            "(2, 7, 3), causal=True, float64",
            args=qkv(2, 7, 3, dtype=torch.float64),
            kwargs={"causal": True},
        )
        yield Probe(
            "causal=True, (2, 64, 4): no (T, T) matrix allowed",
            runner="sized",
            args=qkv(2, 64, 4),
            kwargs={"causal": True},
        )
        probe = Probe("(3, 5, 4), causal=True", args=qkv(3, 5, 4), kwargs={"causal": True})
        yield props(probe, "batch", "meta")

    def judge_value(self, probe, out):
        q, k, v = probe.args
        causal = probe.kwargs.get("causal", False)
        sized = out if probe.runner == "sized" else None
        got = expect_tensor(sized["out"] if sized else out)
        expect_like(got, (*q.shape[:-1], v.shape[-1]), q.dtype)
        expect_finite(
            got,
            hint="That is what is seen; a 0 denominator gives it: with phi(x) = elu(x) + 1, "
            "always positive, and each query's sums running over its keys up to and including "
            "its own position, the denominator is never 0.",
        )
        ref = linear_attention64(q, k, v, causal)

        def va(**kw):
            return lambda: linear_attention64(q, k, v, **{"causal": causal, **kw})

        r = math.sqrt(q.shape[-1])
        mistakes = feature_map_mistakes(va) + named(
            LINEAR_MISTAKES,
            not_normalized=va(normalize=False),
            feature_map_on_v=lambda: linear_attention64(q, k, elu1(v), causal),
            q_scaled=lambda: linear_attention64(q / r, k, v, causal),
            scaled_before_feature_map=va(
                phi_q=lambda x: elu1(x / math.sqrt(r)), phi_k=lambda x: elu1(x / math.sqrt(r))
            ),  # fmt: skip
            softmax_attention=lambda: attention64(q, k, v, causal=causal)[0],
        )
        if causal:
            mistakes += cumsum_mistakes(q, k, v) + named(
                LINEAR_MISTAKES,
                causal_ignored=va(causal=False),
                denominator_not_causal=va(causal_den=False),
                numerator_not_causal=va(causal_num=False),
            )
        tol = {"atol": 1e-7, "rtol": 1e-6} if q.dtype == torch.float64 else {"atol": 1e-4}
        try:
            expect_close(got, ref, **tol, mistakes=mistakes)
        except Fail as fail:
            raise (fail.code and fail) or rows_scaled(got, ref) or fail from None
        if sized:
            T = q.shape[-2]
            too_large(
                sized,
                q.numel() // q.shape[-1] * T,
                f"as large as a ({T}, {T}) matrix per sequence: compute causal linear attention "
                "with torch.cumsum over the sequence (S (..., T, d_k, d_v), z (..., T, d_k)), "
                "without the T x T matrix phi(q) phi(k)^T.",
                "tt_matrix",
            )
