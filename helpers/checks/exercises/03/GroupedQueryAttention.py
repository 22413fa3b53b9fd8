"""Notebook 03: grouped-query attention, ``GroupedQueryAttention(d_model, num_heads,
num_kv_heads, bias=True)`` (Ainslie et al., 2023; Llama 2 70B, Mistral).

The contract: ``q_proj`` and ``out_proj`` are nn.Linear(d_model, d_model), ``k_proj`` and
``v_proj`` nn.Linear(d_model, num_kv_heads * d_head) with d_head = d_model // num_heads; query
head h reads key/value head h // (num_heads // num_kv_heads) (consecutive query heads share one,
as ``repeat_interleave`` along the head dim gives, and as Llama's ``repeat_kv`` does). With
num_kv_heads == num_heads it is multi-head attention; with num_kv_heads == 1, multi-query
attention. :func:`gqa64` is the float64 reference; the known mistakes, edits of it, are in
exercises/03/catalogue.py."""

from __future__ import annotations

import math

import torch
from torch import nn

from ...framework import (
    Exercise,
    Fail,
    Probe,
    Unsupported,
    expect_close,
    expect_like,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import program, variants
from ...modules import expect_bias, expect_names
from ...probes import ATTENTION_BUILTINS, mask_with_a_key_per_row

PROJS = ("q_proj", "k_proj", "v_proj", "out_proj")


def gqa_state(gen, d_model: int, num_heads: int, num_kv_heads: int, bias: bool = True) -> dict:
    """Random weights under the contract's names (a little larger than nn.Linear's init, so
    that the attention is far from uniform and the mistakes show)."""
    d_kv = num_kv_heads * (d_model // num_heads)
    state = {}
    for name in PROJS:
        d_out = d_kv if name in ("k_proj", "v_proj") else d_model
        w = torch.randn(d_out, d_model, generator=gen, dtype=torch.float64)
        state[f"{name}.weight"] = (w * 1.5 / math.sqrt(d_model)).float()
        if bias:
            b = torch.randn(d_out, generator=gen, dtype=torch.float64)
            state[f"{name}.bias"] = (0.1 * b).float()
    return state


def gqa64(state: dict, num_heads: int, num_kv_heads: int, query, key=None, value=None,
          mask=None):  # fmt: skip
    """Grouped-query attention in float64; returns (out (B, T_q, d_model), weights (B, H, T_q,
    T_k)). The catalogue's wrong programs are edits of it (exercises/03/catalogue.py)."""
    key = query if key is None else key
    value = key if value is None else value
    B, T_q, d_model = query.shape
    H, H_kv = num_heads, num_kv_heads
    d_head, group = d_model // H, H // H_kv

    def proj(name, x):
        y = x.double() @ state[f"{name}.weight"].double().T
        return y + state[f"{name}.bias"].double() if f"{name}.bias" in state else y

    def split(x, heads):  # (B, T, heads * d_head) -> (B, heads, T, d_head)
        return x.view(B, -1, heads, d_head).transpose(1, 2)

    q = split(proj("q_proj", query), H)
    k = split(proj("k_proj", key), H_kv).repeat_interleave(group, dim=1)  # (B, H, T_k, d_head)
    v = split(proj("v_proj", value), H_kv).repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ v
    return proj("out_proj", heads.transpose(1, 2).reshape(B, T_q, d_model)), weights


def gqa_as_learner(fn):
    """A learner's GroupedQueryAttention whose forward is ``fn`` (gqa64 or a wrong program)."""

    class GroupedQueryAttention(nn.Module):
        def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
            super().__init__()
            self.h, self.h_kv, d_kv = num_heads, num_kv_heads, num_kv_heads * d_model // num_heads
            self.q_proj = nn.Linear(d_model, d_model, bias=bias)
            self.k_proj = nn.Linear(d_model, d_kv, bias=bias)
            self.v_proj = nn.Linear(d_model, d_kv, bias=bias)
            self.out_proj = nn.Linear(d_model, d_model, bias=bias)

        def forward(self, query, key=None, value=None, mask=None):
            out = fn(dict(self.named_parameters()), self.h, self.h_kv, query, key, value, mask)
            return tuple(t.to(query.dtype) for t in out)

    return GroupedQueryAttention


#: key = value in the case: the weights times k and the values through k_proj give the same
#: output, so neither is named (no code); told apart where key != value
KEYS_AS_VALUES = {
    "weights_times_keys": (
        "the weights multiply the keys: multiply the (repeated) values v.",
        "weights @ v -> weights @ k",
    ),
    "values_through_k_proj": (
        "the values are projected with k_proj: v = v_proj(value), split and repeated like k.",
        'proj("v_proj", value) -> proj("k_proj", value)',
    ),
    None: (
        "out is the weights times the keys k = k_proj(key); with key = value in this case, that "
        "is what multiplying the weights by k gives, and also projecting the values with "
        "k_proj. Multiply the weights by the values, v = v_proj(value), split and repeated like "
        "k.",
        "weights @ v -> weights @ k",
    ),
}


CAUSAL = torch.ones(6, 6, dtype=torch.bool).tril()


PAD = torch.tensor([[True] * 7, [True] * 3 + [False] * 4])[:, None, None, :]


#: (name, init, query, key, value ("key": the same tensor), mask)
CASES = [
    ("self-attention, d_model=16, num_heads=4, num_kv_heads=2 (2 query heads per kv head), "
     "x (2, 5, 16)", {"d_model": 16, "num_heads": 4, "num_kv_heads": 2}, (2, 5, 16), None,
     None, None),
    ("num_heads=6, num_kv_heads=3, causal mask (6, 6), d_model=12",
     {"d_model": 12, "num_heads": 6, "num_kv_heads": 3}, (2, 6, 12), None, None, CAUSAL),
    ("multi-query: num_kv_heads=1, num_heads=4, d_model=8, key != value",
     {"d_model": 8, "num_heads": 4, "num_kv_heads": 1}, (2, 4, 8), (2, 4, 8), (2, 4, 8), None),
    ("num_kv_heads == num_heads == 2 (multi-head attention), key given, value left out",
     {"d_model": 8, "num_heads": 2, "num_kv_heads": 2}, (2, 4, 8), (2, 4, 8), None, None),
    ("cross-attention, 5 queries, 7 keys, padding mask (2, 1, 1, 7), num_heads=6, "
     "num_kv_heads=2, d_model=18", {"d_model": 18, "num_heads": 6, "num_kv_heads": 2},
     (2, 5, 18), (2, 7, 18), "key", PAD),
    ("random mask (2, 1, 4, 4), bias=False, num_heads=8, num_kv_heads=4, d_model=16",
     {"d_model": 16, "num_heads": 8, "num_kv_heads": 4, "bias": False}, (2, 4, 16), None,
     None, "random"),
]  # fmt: skip


INFO = [
    {"d_model": 16, "num_heads": 4, "num_kv_heads": 2},
    {"d_model": 12, "num_heads": 6, "num_kv_heads": 1, "bias": False},
]


def _args(init: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in init.items())


@register
class GroupedQueryAttentionCheck(Exercise):
    id = "03.GroupedQueryAttention"
    title = "grouped-query attention"
    points = 3.0
    kind = "module"
    # F.scaled_dot_product_attention(..., enable_gqa=True) would do the whole exercise
    forbid = ATTENTION_BUILTINS + ("torch.nn.MultiheadAttention.forward",)
    reference64 = staticmethod(gqa64)
    learner = staticmethod(gqa_as_learner)

    def probes(self, gen):
        for init in INFO:
            yield Probe(f"attribute names, GroupedQueryAttention({_args(init)})",
                        runner="module_info", init=init)  # fmt: skip
        for name, init, q, k, v, mask in CASES:
            kwargs = {"key": randn(*k, generator=gen)} if k else {}
            if v:
                kwargs["value"] = kwargs["key"] if v == "key" else randn(*v, generator=gen)
            if mask is not None:
                random = isinstance(mask, str)
                kwargs["mask"] = mask_with_a_key_per_row(gen, 2, 1, 4, 4) if random else mask
            state = gqa_state(gen, init["d_model"], init["num_heads"], init["num_kv_heads"],
                              init.get("bias", True))  # fmt: skip
            yield Probe(name, (randn(*q, generator=gen),), kwargs, "module", init, state)
        init = {"d_model": 12, "num_heads": 6, "num_kv_heads": 2}
        state = {k: v.double() for k, v in gqa_state(gen, 12, 6, 2).items()}
        x = randn(2, 5, 12, generator=gen, dtype=torch.float64)
        yield Probe("float64: weights and x (2, 5, 12), num_heads=6, num_kv_heads=2", (x,), {},
                    "module", init, state)  # fmt: skip

    def judge(self, probe, out):
        if isinstance(out, Unsupported) or (probe.runner != "module" and not isinstance(out, dict)):
            what = out.type_name if isinstance(out, Unsupported) else type(out).__name__
            raise Fail(
                f"got {what}: GroupedQueryAttention(...) should build an nn.Module (subclass "
                "nn.Module and call super().__init__()) whose forward returns (out, weights).",
                "not_a_module",
            )
        if probe.runner == "module_info":
            return self.judge_info(probe, out)
        return self.judge_forward(probe, out)

    def judge_info(self, probe, info):
        init = probe.init
        d, H, H_kv = init["d_model"], init["num_heads"], init["num_kv_heads"]
        bias, d_kv = init.get("bias", True), H_kv * (d // H)
        for name in PROJS:
            kind = info["children"].get(name)
            if kind is None:
                raise Fail(
                    f"the module has no layer {name!r} (an nn.Module): name the projections "
                    "q_proj, "
                    "k_proj, v_proj and out_proj (nn.Linear), as in MultiHeadAttention, so "
                    "that the check can copy its weights.",
                    "projection_names",
                )
            if kind != "Linear":
                raise Fail(f"{name} is a {kind}, expected an nn.Linear.", "not_linear")
        for name in ("k_proj", "v_proj"):
            shape = info["parameters"].get(f"{name}.weight")
            if shape is not None and list(shape) == [d, d] and d_kv != d:
                raise Fail(
                    f"{name}.weight is ({d}, {d}): with {_args(init)} the keys and values "
                    f"have only num_kv_heads * d_head = {H_kv} * {d // H} = {d_kv} features, "
                    f"{name} = nn.Linear(d_model, num_kv_heads * d_head). That is where "
                    "grouped-query attention saves parameters (and the KV cache).",
                    "kv_projection_full",
                )
        names = {}
        for name in PROJS:
            d_out = d_kv if name in ("k_proj", "v_proj") else d
            names[f"{name}.weight"] = [d_out, d]
            if bias:
                names[f"{name}.bias"] = [d_out]
        expect_bias(info, bias, "bias" in probe.init)
        hint = (
            f"d_head = d_model // num_heads = {d // H}; q_proj and out_proj are "
            f"nn.Linear(d_model, d_model), k_proj and v_proj nn.Linear(d_model, num_kv_heads "
            f"* d_head) = nn.Linear({d}, {d_kv})."
        )
        expect_names(info, names, "GroupedQueryAttention",
                     {f"{n}.shape": hint for n in names})  # fmt: skip

    def judge_forward(self, probe, out):
        init, query, mask = probe.init, probe.args[0], probe.kwargs.get("mask")
        H, H_kv = init["num_heads"], init["num_kv_heads"]
        key = probe.kwargs.get("key", query)
        value = probe.kwargs.get("value", key)
        B, T_q, d_model = query.shape
        T_k = key.size(1)
        want = (B, H, T_q, T_k)
        got_out, got_w = expect_tuple(out, 2, "(out, weights)")
        got_out, got_w = expect_tensor(got_out, "out"), expect_tensor(got_w, "weights")
        if tuple(got_w.shape) == (B, H_kv, T_q, T_k) != want:
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}, one map per *key/value* head: "
                f"expected (B, num_heads, T_q, T_k) = {fmt_shape(want)}. Repeat k and v to "
                "num_heads heads before the scores, so that every query head has its own map.",
                "weights_per_kv_head",
            )
        if tuple(got_w.shape) == (B, T_q, T_k):
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}: return the weights of every "
                f"query head, (B, num_heads, T_q, T_k) = {fmt_shape(want)}, not their average.",
                "weights_averaged",
            )
        expect_like(got_w, want, query.dtype, "weights")
        expect_like(got_out, (B, T_q, d_model), query.dtype, "out")

        args = (probe.state, H, H_kv, query, probe.kwargs.get("key"), probe.kwargs.get("value"))
        ref_out, ref_w = gqa64(*args, mask)
        codes = ["kv_heads_tiled", "split_without_transpose", "scale_by_d_model", "no_scale",
                 "softmax_over_queries"]  # fmt: skip
        codes += ["mask_inverted", "mask_ignored", "mask_after_softmax"] if mask is not None else []
        codes += ["keys_from_query"] if key is not query else []
        mistakes = variants(self.mistakes, gqa64, (*args, mask), pick=lambda o: o[1], codes=codes)
        expect_close(got_w, ref_w, "weights", mistakes=mistakes)
        codes = ["values_tiled", "merge_without_transpose"]
        if "key" in probe.kwargs and "value" not in probe.kwargs:
            codes += ["value_defaults_to_query"]
        else:
            codes += ["values_from_query"] if value is not query else []
        codes += ["values_from_key"] if value is not key else []
        mistakes = variants(self.mistakes, gqa64, (*args, mask), pick=lambda o: o[0], codes=codes)
        for code in [None] if value is key else ["weights_times_keys", "values_through_k_proj"]:
            message, edit = KEYS_AS_VALUES[code]
            mistakes.append((lambda e=edit: program(gqa64, e)(*args, mask)[0], message, code))
        expect_close(got_out, ref_out, "out", mistakes=mistakes)
