"""Notebook 08, part 3: one decoding step with a KV cache.

The runner feeds the learner's function one token at a time from cache=None, as a decoder
would; the outputs must be causal attention over every token so far (float64 reference), and the
final cache must hold every key and value in order.
"""

from __future__ import annotations

import math

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
)
from .references import attention64
from .runner import describe_exception

# --------------------------------------------------------------------------- KV cache


def causal_attention64(q, k, v, scale: str = "sqrt", allowed=None) -> torch.Tensor:
    """Causal attention in float64 (:func:`attention64`); ``scale``: "sqrt" (right), "d" or
    "none"; ``allowed``: a (T, T) mask of a known mistake instead of the causal one."""
    d = q.shape[-1]
    divisor = {"sqrt": math.sqrt(d), "d": d, "none": 1.0}[scale]
    return attention64(q, k, v, allowed, scale=divisor, causal=allowed is None)[0]


def first_keys(T: int, and_self: bool) -> torch.Tensor:
    """The first key (and the query's own with ``and_self``): a cache never extended."""
    allowed = torch.eye(T, dtype=torch.bool) if and_self else torch.zeros(T, T, dtype=torch.bool)
    allowed[:, 0] = True
    return allowed


def before_append(T: int) -> torch.Tensor:
    """Attending before appending: each step sees the earlier keys only (the first, itself)."""
    allowed = torch.ones(T, T, dtype=torch.bool).tril(-1)
    allowed[0, 0] = True
    return allowed


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
        tril = torch.ones(T, T, dtype=torch.bool).tril()
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
                    lambda: causal_attention64(q, k, v, allowed=before_append(T)),
                    "each step attends to the cached keys but not to the new token itself (it "
                    "attends before appending): append the new k and v to the cache first, "
                    "then attend to the whole cache.",
                    "new_token_not_attended",
                ),
                (
                    lambda: causal_attention64(q, k, v, allowed=tril.tril(-1)),
                    "each step attends to the cached keys but not to the new token itself (it "
                    "attends before appending): append the new k and v to the cache first, "
                    "then attend to the whole cache.",
                    "new_token_not_attended",
                ),
                (
                    lambda: causal_attention64(q, k, v, allowed=tril.triu(-1)),
                    "each step sees only the previous token and itself: the returned cache must "
                    "hold "
                    "every token so far, torch.cat([k_cache, k], dim=-2), not just the newest one.",
                    "cache_keeps_last_only",
                ),
                (
                    lambda: causal_attention64(q, k, v, allowed=first_keys(T, True)),
                    "each step sees only the first token and itself: the cache is never "
                    "extended. Return the concatenated (k, v) as the new cache, not the cache "
                    "you were given.",
                    "cache_not_extended",
                ),
                (
                    lambda: causal_attention64(q, k, v, allowed=first_keys(T, False)),
                    "every step attends only to the first token: its weights should be the "
                    "softmax over all cached keys, softmax(q k^T / sqrt(d_k)).",
                    "first_key_only",
                ),
                (
                    lambda: causal_attention64(q, k, v, scale="none"),
                    "the scores are not divided by sqrt(d_k).",
                    "no_scale",
                ),
                (
                    lambda: causal_attention64(q, k, v, scale="d"),
                    "the scores are divided by d_k: divide by sqrt(d_k), math.sqrt(q.size(-1)).",
                    "scaled_by_d",
                ),
                (
                    lambda: v.double().cumsum(-2),
                    "every cached value gets weight 1: the softmax runs over the single query "
                    "(dim=-2). Take it over the keys, softmax(scores, dim=-1).",
                    "softmax_over_queries",
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
