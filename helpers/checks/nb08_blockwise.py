"""Notebook 08, part 2: blockwise attention with an online softmax, and the KV cache.

References are softmax attention written out in float64; the known wrong variants are the
same formulas with one switch flipped.
"""

from __future__ import annotations

import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
)
from .runner import describe_exception

# --------------------------------------------------------------------------- blockwise attention


class LargestTensor(TorchDispatchMode):
    """Records the largest number of elements of any tensor an operation produces."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self.largest = max(self.largest, t.numel())
        return out


def blockwise64(
    q,
    k,
    v,
    block_size: int,
    *,
    rescale_acc: bool = True,
    rescale_sum: bool = True,
    normalize: bool = True,
    scale: bool = True,
) -> torch.Tensor:
    """Online-softmax attention in float64 with switches for the known mistakes."""
    q, k, v = q.double(), k.double(), v.double()
    s_q = 1 / math.sqrt(q.shape[-1]) if scale else 1.0
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=torch.float64)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=torch.float64)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start : start + block_size, :], v[..., start : start + block_size, :]
        s = q @ kb.transpose(-2, -1) * s_q
        m_blk = s.amax(-1, keepdim=True)
        m_new = torch.maximum(m, m_blk)
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = (l * alpha if rescale_sum else l) + p.sum(-1, keepdim=True)
        acc = (acc * alpha if rescale_acc else acc) + p @ vb
        m = m_new
    return acc / l if normalize else acc


class BlockwiseAttentionCheck(Exercise):
    id = "08.blockwise_attention"
    title = "exact attention block by block, with an online softmax"
    points = 3.0
    forbid = (
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.softmax",
        "torch.nn.functional.softmax",
        "torch.Tensor.softmax",
        "torch.logsumexp",
        "torch.Tensor.logsumexp",
    )

    def probes(self, gen):
        def qkv(*shape, d_v=None, dtype=torch.float32, spread=1.0):
            *b, T_q, T_k, d = shape
            return (
                spread * randn(*b, T_q, d, dtype=dtype, generator=gen),
                spread * randn(*b, T_k, d, dtype=dtype, generator=gen),
                randn(*b, T_k, d_v or d, dtype=dtype, generator=gen),
            )

        yield Probe(
            "q, k, v (1, 8, 4), block_size = 8 (one block)",
            runner="blockwise",
            args=qkv(1, 8, 8, 4),
            kwargs={"block_size": 8},
        )
        yield Probe(
            "(2, 32, 8), block_size = 8, large scores (the max changes between blocks)",
            runner="blockwise",
            args=qkv(2, 32, 32, 8, spread=3.0),
            kwargs={"block_size": 8},
        )
        yield Probe(
            "T_q = 5, T_k = 13, block_size = 4 (the last block is shorter), d_v = 3",
            runner="blockwise",
            args=qkv(5, 13, 6, d_v=3, spread=2.0),
            kwargs={"block_size": 4},
        )
        yield Probe(
            "heads (2, 2, 64, 8), block_size = 16: no (T, T) matrix allowed",
            runner="blockwise",
            args=qkv(2, 2, 64, 64, 8, spread=2.0),
            kwargs={"block_size": 16},
        )
        yield Probe(
            "(1, 24, 4) float64, block_size = 5",
            runner="blockwise",
            args=qkv(1, 24, 24, 4, dtype=torch.float64, spread=3.0),
            kwargs={"block_size": 5},
        )
        # scores near +98 in the first block and near -98 in the second: exp overflows float32
        # (above ~88) unless the running max is subtracted and only ever grows
        q, k, v = qkv(1, 4, 8, 4, spread=0.1)
        sign = torch.where(torch.arange(8) < 4, 1.0, -1.0)[:, None]  # (T_k, 1)
        yield Probe(
            "(1, 4, 4) and 8 keys, block_size = 4, float32, scores near +98 in the first block "
            "and near -98 in the second",
            runner="blockwise",
            args=(q + 7.0, k + 7.0 * sign, v),
            kwargs={"block_size": 4},
            info={"far_apart": True},
        )

    def run_blockwise(self, probe, candidate, device):
        from .runner import to_device

        args = to_device(probe.args, device)
        with LargestTensor() as spy:
            out = candidate(*args, **probe.kwargs)
        return {"out": out, "largest": spy.largest}

    def judge(self, probe, out):
        q, k, v = probe.args
        bs = probe.kwargs["block_size"]
        if not isinstance(out, dict) or "out" not in out:
            raise Fail("internal: unexpected runner output.")
        got = expect_tensor(out["out"])
        expect_like(got, (*q.shape[:-1], v.shape[-1]), q.dtype)
        if probe.info.get("far_apart") and not torch.isfinite(got).all():
            raise Fail(
                "the result contains NaN or inf when the scores of two blocks are far apart: "
                "exp overflows. Subtract the running max, m_new = max(m_old, the block's max) "
                "(not the block's own max), so that every exp(s - m_new) and the correction "
                "exp(m_old - m_new) is at most 1.",
                "overflow",
            )
        expect_finite(
            got,
            hint="Start the running max at -inf and the running sum at 0; "
            "exp(-inf - m) is 0, but -inf - (-inf) is NaN: compute the "
            "correction exp(m_old - m_new) with m_new already finite.",
        )
        s = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
        ref = s.softmax(-1) @ v.double()

        def vb(**kw):
            return lambda: blockwise64(q, k, v, bs, **kw)

        expect_close(
            got,
            ref,
            mistakes=[
                (vb(scale=False), "the scores are not divided by sqrt(d_k).", "no_scale"),
                (
                    vb(normalize=False),
                    "the result is not divided by the running sum at the end: return acc / l.",
                    "not_normalized",
                ),
                (
                    vb(rescale_acc=False),
                    "the accumulator is not rescaled when the running max "
                    "grows: multiply acc by exp(m_old - m_new) before adding the "
                    "new block.",
                    "accumulator_not_rescaled",
                ),
                (
                    vb(rescale_sum=False),
                    "the running sum is not rescaled when the running max grows: "
                    "l = l * exp(m_old - m_new) + p.sum(-1).",
                    "sum_not_rescaled",
                ),
                (
                    vb(rescale_acc=False, rescale_sum=False),
                    "neither the running sum nor the accumulator is rescaled when the max grows: "
                    "multiply both by exp(m_old - m_new).",
                    "nothing_rescaled",
                ),
            ],
        )
        B = q.numel() // (q.shape[-1] * q.shape[-2])
        full = B * q.shape[-2] * k.shape[-2]
        inputs = max(q.numel(), k.numel(), v.numel(), got.numel())
        if (
            k.shape[-2] > bs
            and full > inputs
            and isinstance(out["largest"], int)
            and out["largest"] >= full
        ):
            raise Fail(
                f"the result is right, but a tensor of {out['largest']} elements was made, "
                f"as large as the whole score matrix {fmt_shape((*q.shape[:-1], k.shape[-2]))}: "
                f"compute the scores of one block of {bs} keys at a time.",
                "full_score_matrix",
            )


# --------------------------------------------------------------------------- KV cache


def causal_attention64(
    q, k, v, diagonal: int = 0, scale: bool = True, window: int | None = None, first: str = ""
) -> torch.Tensor:
    """Causal attention in float64; ``window``: only the last window + 1 keys; ``first``:
    "and_self" (the first key and the query's own, a cache never extended), "only"."""
    q, k, v = q.double(), k.double(), v.double()
    s = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) if scale else 1.0)
    T = s.shape[-1]
    allowed = torch.ones(T, T, dtype=torch.bool).tril(diagonal)
    if window is not None:
        allowed = allowed & torch.ones(T, T, dtype=torch.bool).triu(-window)
    if first:
        allowed = torch.zeros(T, T, dtype=torch.bool)
        allowed[:, 0] = True
        if first == "and_self":
            allowed |= torch.eye(T, dtype=torch.bool)
    s = s.masked_fill(~allowed, float("-inf"))
    return s.softmax(-1) @ v


class KVCacheStepCheck(Exercise):
    id = "08.kv_cache_step"
    title = "one decoding step with a KV cache"
    points = 2.0

    def probes(self, gen):
        yield Probe(
            "q, k, v (1, 2, 5, 4), one token at a time",
            runner="decode",
            args=(
                randn(1, 2, 5, 4, generator=gen),
                randn(1, 2, 5, 4, generator=gen),
                randn(1, 2, 5, 4, generator=gen),
            ),
        )
        yield Probe(
            "(2, 3, 7, 8), d_v = 5",
            runner="decode",
            args=(
                randn(2, 3, 7, 8, generator=gen),
                randn(2, 3, 7, 8, generator=gen),
                randn(2, 3, 7, 5, generator=gen),
            ),
        )
        yield Probe(
            "(1, 1, 6, 3), float64",
            runner="decode",
            args=tuple(randn(1, 1, 6, 3, dtype=torch.float64, generator=gen) for _ in range(3)),
        )

    def run_decode(self, probe, candidate, device):
        """Feed the candidate one token at a time, starting from cache=None, as a decoder would."""
        from .runner import to_device

        q, k, v = to_device(probe.args, device)
        cache, outs = None, []
        for t in range(q.shape[-2]):
            step = slice(t, t + 1)
            try:
                result = candidate(q[..., step, :], k[..., step, :], v[..., step, :], cache)
            except RuntimeError as exc:
                if t == 0:
                    raise
                return {"cache_error": describe_exception(exc)}  # only once there is a cache
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                return {
                    "bad": type(result).__name__
                    if not isinstance(result, (tuple, list))
                    else f"a tuple of {len(result)}"
                }
            out, cache = result
            outs.append(out)
        return {"outs": outs, "cache": cache}

    def judge(self, probe, out):
        q, k, v = probe.args
        B, H, T, _ = q.shape
        if "bad" in out:
            raise Fail(f"should return a tuple (out, cache), got {out['bad']}.", "not_a_tuple")
        if "cache_error" in out:
            raise Fail(
                f"{out['cache_error']}\n   The first step (cache=None) ran; the second, with "
                "the cache the first returned, failed: concatenate the cache and the new k, v "
                "along the time dimension, torch.cat([k_cache, k], dim=-2), and return the "
                "concatenated (k, v) as the new cache.",
                "cache_shapes",
            )
        outs = out["outs"]
        for t, o in enumerate(outs):
            o = expect_tensor(o, f"the output of step {t}")
            if tuple(o.shape) != (B, H, 1, v.shape[-1]):
                raise Fail(
                    f"the output of step {t} has shape {fmt_shape(o.shape)}, expected "
                    f"{(B, H, 1, v.shape[-1])}: one query, attending to every cached key.",
                    "step_output_shape",
                )
        got = torch.cat(outs, dim=-2)  # (B, H, T, d_v)
        expect_like(got, (B, H, T, v.shape[-1]), q.dtype, "the outputs")
        expect_close(
            got,
            causal_attention64(q, k, v),
            "the outputs, step by step",
            mistakes=[
                (
                    lambda: v.double(),
                    "each step attends only to the new token: append the new k and v "
                    "to the cache first, then attend to the whole cache.",
                    "cache_ignored",
                ),
                (
                    lambda: causal_attention64(q, k, v, diagonal=-1),
                    "each step attends to the cached keys but not to the new token itself: append "
                    "the new "
                    "k and v to the cache before attending.",
                    "new_token_not_attended",
                ),
                (
                    lambda: causal_attention64(q, k, v, window=1),
                    "each step sees only the previous token and itself: the returned cache must "
                    "hold "
                    "every token so far, torch.cat([k_cache, k], dim=-2), not just the newest one.",
                    "cache_keeps_last_only",
                ),
                (
                    lambda: causal_attention64(q, k, v, first="and_self"),
                    "each step sees only the first token and itself: the cache is never "
                    "extended. Return the concatenated (k, v) as the new cache, not the cache "
                    "you were given.",
                    "cache_not_extended",
                ),
                (
                    lambda: causal_attention64(q, k, v, first="only"),
                    "every step attends only to the first token: its weights should be the "
                    "softmax over all cached keys, softmax(q k^T / sqrt(d_k)).",
                    "first_key_only",
                ),
                (
                    lambda: causal_attention64(q, k, v, scale=False),
                    "the scores are not divided by sqrt(d_k).",
                    "no_scale",
                ),
            ],
        )
        cache = out["cache"]
        if not isinstance(cache, (tuple, list)) or len(cache) != 2:
            raise Fail("the cache should be a tuple (k_cache, v_cache).", "cache_not_a_tuple")
        k_cache = expect_tensor(cache[0], "k_cache")
        v_cache = expect_tensor(cache[1], "v_cache")
        for name, c, ref in (("k_cache", k_cache, k), ("v_cache", v_cache, v)):
            if tuple(c.shape) != tuple(ref.shape):
                raise Fail(
                    f"after {T} steps {name} has shape {fmt_shape(c.shape)}, expected "
                    f"{fmt_shape(ref.shape)}: concatenate along the time dimension (dim=-2).",
                    "cache_shape",
                )
            expect_close(
                c,
                ref,
                f"{name} after {T} steps",
                mistakes=[
                    (
                        ref.flip(-2),
                        f"{name} holds the tokens newest first: put the new token last, "
                        "torch.cat([k_cache, k], dim=-2), so that the cache keeps their order.",
                        "new_token_first",
                    )
                ],
            )
