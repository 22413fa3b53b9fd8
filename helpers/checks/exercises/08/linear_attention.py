"""08.linear_attention: linear attention with the elu + 1 feature map (its check)."""

from __future__ import annotations

import itertools
import math  # noqa: F401 (the catalogue's programs run in this module)

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
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ATTENTION_BUILTINS, too_large
from ...properties import PropertyMixin
from ...references import attention64  # noqa: F401 (softmax_attention's program)
from ...run.relations import props
from .reference import rows_scaled


def elu1(x: torch.Tensor) -> torch.Tensor:
    return F.elu(x) + 1


def linear64(q, k, v, causal=False) -> torch.Tensor:
    """The reference, float64, by sums over the keys (cumulative when causal): no (T, T) matrix.
    The catalogue's wrong programs are edits of it (exercises/08/catalogue.py)."""
    pq, pk, v = elu1(q.double()), elu1(k.double()), v.double()
    if causal:
        S = (pk[..., :, None] * v[..., None, :]).cumsum(-3)  # (..., T, d_k, d_v)
        z = pk.cumsum(-2)  # (..., T, d_k)
        return (pq[..., None, :] @ S).squeeze(-2) / (pq * z).sum(-1, keepdim=True)
    S, z = pk.transpose(-2, -1) @ v, pk.sum(-2)  # (..., d_k, d_v), (..., d_k)
    return pq @ S / (pq * z[..., None, :]).sum(-1, keepdim=True)


def mapped64(q, k, v, causal=False, *, phi_q=elu1, phi_k=elu1) -> torch.Tensor:
    """The quadratic form with other feature maps: A = phi(q) phi(k)^T (tril when causal),
    out = A v / A.sum(-1)."""
    A = phi_q(q.double()) @ phi_k(k.double()).transpose(-2, -1)  # (..., T_q, T_k)
    A = A.tril() if causal else A
    return A @ v.double() / A.sum(-1, keepdim=True)


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
    reference64 = staticmethod(linear64)

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
        ref = linear64(q, k, v, causal)

        def va(**kw):
            return lambda: mapped64(q, k, v, causal, **kw)

        general = ("not_normalized", "feature_map_on_v", "q_scaled", "scaled_before_feature_map")
        args = (q, k, v, causal)
        mistakes = feature_map_mistakes(va) + variants(
            self.mistakes, linear64, args, codes=(*general, "softmax_attention")
        )
        if causal:
            mistakes += cumsum_mistakes(q, k, v) + variants(
                self.mistakes, linear64, args,
                codes=("causal_ignored", "denominator_not_causal", "numerator_not_causal"),
            )  # fmt: skip
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
