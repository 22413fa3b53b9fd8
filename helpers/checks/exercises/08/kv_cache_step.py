"""Notebook 08, part 3: one decoding step with a KV cache.

The runner feeds the learner's function one token at a time from cache=None, as a decoder
would; the outputs must be causal attention over every token so far (float64 reference), and the
final cache must hold every key and value in order."""

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
    fmt_shape,
    randn,
    register,
)
from ...mistakes import program
from ...properties import STABLE
from ...references import attention64
from .reference import fit_scale, scale_names


def causal_attention64(q, k, v, scale: float = 1.0) -> torch.Tensor:
    """Causal attention in float64 (:func:`attention64`), the scores times ``scale`` on top of
    1 / sqrt(d_k)."""
    return attention64(q, k, v, scale=math.sqrt(q.shape[-1]) / scale, causal=True)[0]


def kv_step64(q, k, v, cache=None):
    """One decoding step in float64: append k, v to the cache, attend to all of it. The
    catalogue's wrong programs are edits of it (exercises/08/catalogue.py)."""
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
    out = attention64(q, k, v)[0]
    return out, (k, v)


def steps64(step, q, k, v) -> torch.Tensor:
    """The outputs of ``step`` fed one token at a time from cache=None, as the runner does."""
    cache, outs = None, []
    for t in range(q.shape[-2]):
        out, cache = step(*(x[..., t : t + 1, :] for x in (q, k, v)), cache)
        outs.append(out)
    return torch.cat(outs, dim=-2)


@register
class KVCacheStepCheck(Exercise):
    id = "08.kv_cache_step"
    title = "one decoding step with a KV cache"
    points = 2.0
    reference64 = staticmethod(kv_step64)

    def probes(self, gen):
        def qkv(*shape, d_v=None, dtype=torch.float32):
            q, k = (randn(*shape, dtype=dtype, generator=gen) for _ in "qk")
            return q, k, randn(*shape[:-1], d_v or shape[-1], dtype=dtype, generator=gen)

        yield Probe(
            "q, k, v (1, 2, 5, 4), one token at a time", runner="kv_decode", args=qkv(1, 2, 5, 4)
        )
        yield Probe("(2, 3, 7, 8), d_v = 5", runner="kv_decode", args=qkv(2, 3, 7, 8, d_v=5))
        yield Probe(
            "(1, 1, 6, 3), float64", runner="kv_decode", args=qkv(1, 1, 6, 3, dtype=torch.float64)
        )

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
        for t, o in enumerate(out["outs"]):
            o = expect_tensor(o, f"the output of step {t}")
            if tuple(o.shape) != (B, H, 1, v.shape[-1]):
                raise Fail(
                    f"the output of step {t} has shape {fmt_shape(o.shape)}, expected "
                    f"{(B, H, 1, v.shape[-1])}: one query, attending to every cached key.",
                    "step_output_shape",
                )
        got = torch.cat(out["outs"], dim=-2)  # (B, H, T, d_v)
        expect_like(got, (B, H, T, v.shape[-1]), q.dtype, "the outputs")
        mistakes = [
            (lambda spec=spec: steps64(program(kv_step64, spec), q, k, v), m.message, m.code)
            for m in self.mistakes.values()
            for spec in m.wrong
        ]
        what = "the outputs, step by step"
        try:
            expect_close(got, causal_attention64(q, k, v), what, mistakes=mistakes,
                         hint=STABLE["softmax"])  # fmt: skip
        except Fail as fail:
            if fail.code:
                raise
            make = lambda c: causal_attention64(q, k, v, scale=c)  # noqa: E731
            found = mixed_up(out["cache"], k, v) or fit_scale(got, make, scale_names(q.shape[-1]))
            raise found or fail from None
        judge_cache(out["cache"], k, v, T)


def mixed_up(cache, k, v) -> Fail | None:
    """A cache whose first rows hold the other tensor (the values in k_cache, or the keys)."""
    if not isinstance(cache, (tuple, list)) or len(cache) != 2 or k.shape != v.shape:
        return None
    for name, c, other, words in (
        ("k_cache", cache[0], v, "values"),
        ("v_cache", cache[1], k, "keys"),
    ):
        if isinstance(c, torch.Tensor) and c.shape == other.shape:
            if close(c[..., :1, :], other[..., :1, :], 1e-5, 1e-4):
                return Fail(
                    f"{name} holds the {words}: the keys' cache is cache[0] and the values' "
                    "cache[1], k = torch.cat([cache[0], k], dim=-2), v = torch.cat([cache[1], "
                    "v], dim=-2).",
                    "cache_mixed_up",
                )
    return None


def judge_cache(cache, k, v, T) -> None:
    """The final cache holds every key and value, in order."""
    if not isinstance(cache, (tuple, list)) or len(cache) != 2:
        raise Fail("the cache should be a tuple (k_cache, v_cache).", "cache_not_a_tuple")
    for name, c, ref in (("k_cache", cache[0], k), ("v_cache", cache[1], v)):
        c = expect_tensor(c, name)
        if tuple(c.shape) != tuple(ref.shape):
            raise Fail(
                f"after {T} steps {name} has shape {fmt_shape(c.shape)}, expected "
                f"{fmt_shape(ref.shape)}: concatenate along the time dimension (dim=-2).",
                "cache_shape",
            )
        flipped = (
            ref.flip(-2),
            f"{name} holds the tokens newest first: put the new token last, "
            "torch.cat([k_cache, k], dim=-2), so that the cache keeps their order.",
            "new_token_first",
        )
        expect_close(c, ref, f"{name} after {T} steps", mistakes=[flipped])
