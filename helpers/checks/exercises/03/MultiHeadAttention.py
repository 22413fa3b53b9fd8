"""Notebook 03: multi-head attention, checked against a float64 formula of
nn.MultiheadAttention with copied weights (:func:`mha_ref64`, as ``references.mha64`` that
tests/checks/test_nb03.py compares with it); the known mistakes, edits of it, are in
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
    randint,
    randn,
    register,
)
from ...mistakes import program, variants
from ...modules import expect_bias, expect_names
from ...parts import locate
from ...probes import (
    ATTENTION_BUILTINS,
    P_IGNORED,
    judge_dropout,
    mask_with_a_key_per_row,
    train_mode_parts,
)
from ...run.modules import fixed_dropout
from ...run.parts import PARTS_KEY
from ...weights import PROJECTIONS, random_state


def mha_ref64(state: dict, num_heads: int, query, key=None, value=None, mask=None, dropout=None):
    """Multi-head attention in float64 (nn.MultiheadAttention's numbers), ``dropout`` (a
    function, training mode) on the weights; returns (out, weights). The catalogue's wrong
    programs are edits of it (exercises/03/catalogue.py)."""
    key = query if key is None else key
    value = key if value is None else value
    drop = dropout or (lambda t: t)
    B, T_q, d_model = query.shape
    H, d_head = num_heads, d_model // num_heads

    def proj(name, x):  # (B, T, d_model)
        y = x.double() @ state[f"{name}.weight"].double().T
        return y + state[f"{name}.bias"].double() if f"{name}.bias" in state else y

    def split(x):  # (B, T, d_model) -> (B, H, T, d_head)
        return x.view(B, -1, H, d_head).transpose(1, 2)

    q, k = split(proj("q_proj", query)), split(proj("k_proj", key))
    v = split(proj("v_proj", value))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = drop(torch.softmax(scores, dim=-1))
    heads = weights @ v  # (B, H, T_q, d_head)
    merged = heads.transpose(1, 2).reshape(B, T_q, d_model)
    return proj("out_proj", merged), weights


def mha_as_learner(fn):
    """A learner's MultiHeadAttention whose forward is ``fn`` (mha_ref64 or a wrong program)."""

    class MultiHeadAttention(nn.Module):
        def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
            super().__init__()
            self.h, self.dropout = num_heads, nn.Dropout(dropout)
            for name in PROJECTIONS:
                setattr(self, name, nn.Linear(d_model, d_model, bias=bias))

        def forward(self, query, key=None, value=None, mask=None):
            drop = self.dropout if self.training else None
            out = fn(dict(self.named_parameters()), self.h, query, key, value, mask, drop)
            return tuple(t.to(query.dtype) for t in out)

    return MultiHeadAttention


#: the projections a learner may leave out, in the order of projection_skipped's programs
SKIPPED = (("q_proj", "query"), ("k_proj", "key"), ("v_proj", "value"),
           ("out_proj", "merged heads' output"))  # fmt: skip


SHAPES = {  # wrong shapes of the weights, (B, H, T_q, T_k) expected
    "weights_averaged": "return the weights of every head, not their average.",
    "keys_from_query": "the keys come from `query`. In cross-attention project the `key` "
    "argument with k_proj (key defaults to query only when it is None).",
    "num_heads_ignored": "num_heads is ignored. Split the projections into heads, (B, T, "
    "d_model) -> (B, H, T, d_head) with d_head = d_model // num_heads.",
}


#: the forward cases: (name, init, query, key, value ("key": the same tensor), mask)
CAUSAL, PAD = (
    torch.ones(6, 6, dtype=torch.bool).tril(),
    torch.tensor([[True] * 7, [True] * 3 + [False] * 4]),
)


CASES = [
    ("self-attention, d_model=12, num_heads=3, x (2, 5, 12), key and value left out",
     {"d_model": 12, "num_heads": 3}, (2, 5, 12), None, None, None),
    ("self-attention with a causal mask (6, 6), d_model=8, num_heads=2",
     {"d_model": 8, "num_heads": 2}, (3, 6, 8), None, None, CAUSAL),
    ("attention with key != value, 4 queries, 4 keys, d_model=8, num_heads=2",
     {"d_model": 8, "num_heads": 2}, (2, 4, 8), (2, 4, 8), (2, 4, 8), None),
    ("key given and value left out (value defaults to key), 4 queries, 4 keys, d_model=8, "
     "num_heads=2", {"d_model": 8, "num_heads": 2}, (2, 4, 8), (2, 4, 8), None, None),
    ("cross-attention, key != value, 5 queries, 3 keys, d_model=6, num_heads=2",
     {"d_model": 6, "num_heads": 2}, (2, 5, 6), (2, 3, 6), (2, 3, 6), None),
    ("cross-attention, 4 queries, 7 keys, padding mask (2, 1, 1, 7), d_model=12, num_heads=4",
     {"d_model": 12, "num_heads": 4}, (2, 4, 12), (2, 7, 12), "key", PAD[:, None, None, :]),
    ("random mask (2, 1, 4, 4), bias=False, d_model=8, num_heads=4",
     {"d_model": 8, "num_heads": 4, "bias": False}, (2, 4, 8), None, None, "random"),
]  # fmt: skip


@register
class MultiHeadAttentionCheck(Exercise):
    id = "03.MultiHeadAttention"
    title = "multi-head attention"
    points = 4.0
    kind = "module"
    forbid = ATTENTION_BUILTINS + ("torch.nn.MultiheadAttention.forward",)
    function_parts = ("02.scaled_dot_product_attention",)
    reference64 = staticmethod(mha_ref64)
    learner = staticmethod(mha_as_learner)

    def probes(self, gen):
        for init in (
            {"d_model": 12, "num_heads": 3},
            {"d_model": 8, "num_heads": 2, "bias": False},
        ):
            args = ", ".join(f"{k}={v}" for k, v in init.items())
            yield Probe(
                f"attribute names, MultiHeadAttention({args})", runner="module_info", init=init
            )
        for name, init, q, k, v, mask in CASES:
            kwargs = {"key": randn(*k, generator=gen)} if k else {}
            if v:
                kwargs["value"] = kwargs["key"] if v == "key" else randn(*v, generator=gen)
            if mask is not None:
                kwargs["mask"] = (
                    mask_with_a_key_per_row(gen, 2, 1, 4, 4) if mask == "random" else mask
                )
            state = random_state(gen, init["d_model"], bias=init.get("bias", True))
            yield Probe(name, (randn(*q, generator=gen),), kwargs, "module", init, state)
        state = {k: v.double() for k, v in random_state(gen, 8).items()}  # weights and x float64
        x = randn(2, 5, 8, generator=gen, dtype=torch.float64)
        yield Probe("float64: weights and x (2, 5, 8), d_model=8, num_heads=2", (x,), {},
                    "module", {"d_model": 8, "num_heads": 2}, state)  # fmt: skip
        yield Probe(
            "training mode with dropout=0.5: dropout acts on the attention weights",
            runner="train_mode",
            init={"d_model": 8, "num_heads": 2, "dropout": 0.5},
            state=random_state(gen, 8),
            args=(randn(2, 6, 8, generator=gen),),
            kwargs={"dropout_seed": int(randint(gen, 0, 2**30))},
        )

    # ----------------------------------------------------------------------- judging

    def judge(self, probe, out):
        if isinstance(out, dict) and out.get(PARTS_KEY) is True:  # see run/parts.with_function_part
            try:
                return self.judge_value(probe, out["out"])
            except Fail as fail:
                raise locate(self, probe, out, fail) from None
        return self.judge_value(probe, out)

    def judge_value(self, probe, out):
        if isinstance(out, Unsupported) or (probe.runner != "module" and not isinstance(out, dict)):
            what = out.type_name if isinstance(out, Unsupported) else type(out).__name__
            raise Fail(
                f"got {what}: MultiHeadAttention(...) should build an nn.Module (subclass "
                "nn.Module and call super().__init__()) whose forward returns (out, weights).",
                "not_a_module",
            )
        judge = {"module_info": self.judge_info, "train_mode": self.judge_train}
        return judge.get(probe.runner, self.judge_forward)(probe, out)

    def judge_info(self, probe, info):
        d, bias = probe.init["d_model"], probe.init.get("bias", True)
        for name in PROJECTIONS:
            kind = info["children"].get(name)
            if kind is None:
                raise Fail(
                    f"the module has no layer {name!r} (an nn.Module): name the projections "
                    "q_proj, "
                    "k_proj, v_proj and out_proj (nn.Linear(d_model, d_model)), as "
                    "nn.MultiheadAttention does, so that weights can be copied.",
                    "projection_names",
                )
            if kind != "Linear":
                raise Fail(
                    f"{name} is a {kind}, expected nn.Linear(d_model, d_model).", "not_linear"
                )
        expect_bias(info, bias, "bias" in probe.init)
        names = {
            f"{n}.{w}": [d, d] if w == "weight" else [d]
            for n in PROJECTIONS
            for w in ("weight", "bias")
        }
        hint = "every projection is nn.Linear(d_model, d_model); the heads are a reshape."
        expect_names(
            info,
            {k: v for k, v in names.items() if bias or k.endswith("weight")},
            "MultiHeadAttention",
            {f"{n}.weight.shape": hint for n in PROJECTIONS},
        )

    def judge_forward(self, probe, out):
        H, query, mask = probe.init["num_heads"], probe.args[0], probe.kwargs.get("mask")
        key = probe.kwargs.get("key", query)
        value = probe.kwargs.get("value", key)
        B, T_q, d_model = query.shape
        want = (B, H, T_q, key.size(1))
        got_out, got_w = expect_tuple(out, 2, "(out, weights)")
        got_out, got_w = expect_tensor(got_out, "out"), expect_tensor(got_w, "weights")
        for code, shape in zip(
            SHAPES, ((B, T_q, key.size(1)), want[:3] + (T_q,), (B, 1) + want[2:])
        ):
            if tuple(got_w.shape) == shape != want:
                raise Fail(
                    f"weights has shape {fmt_shape(shape)}, expected (B, H, T_q, T_k) = "
                    f"{fmt_shape(want)}: {SHAPES[code]}",
                    code,
                )
        expect_like(got_w, want, query.dtype, "weights")
        expect_like(got_out, (B, T_q, d_model), query.dtype, "out")

        args = (probe.state, H, query, probe.kwargs.get("key"), probe.kwargs.get("value"), mask)
        ref_out, ref_w = mha_ref64(*args)

        def table(codes, i):
            return variants(self.mistakes, mha_ref64, args, pick=lambda o: o[i], codes=codes)

        def skipped(i):  # a projection left out: any of them, the same words
            m, found = self.mistakes["projection_skipped"], []
            for spec, (p, arg) in zip(m.wrong, SKIPPED):
                if (p in ("q_proj", "k_proj")) == (i == 1):  # q, k: the weights; v, out: out
                    run = program(mha_ref64, spec)
                    found.append((lambda r=run: r(*args)[i], m.say(p=p, arg=arg), m.code))
            return found

        codes = ["split_without_transpose", "scale_by_d_model", "no_scale", "softmax_over_queries",
                 "always_causal"]  # fmt: skip
        codes += ["mask_inverted", "mask_ignored", "mask_after_softmax"] if mask is not None else []
        codes += ["keys_from_query"] if key is not query else []
        expect_close(got_w, ref_w, "weights", mistakes=table(codes, 1) + skipped(1))
        codes = ["merge_without_transpose", "weights_times_keys"]
        if "key" in probe.kwargs and "value" not in probe.kwargs:
            codes += ["value_defaults_to_query"]
        else:
            codes += ["values_from_query"] if value is not query else []
        codes += ["values_from_key"] if value is not key else []
        expect_close(got_out, ref_out, "out", mistakes=table(codes, 0) + skipped(0))

    def judge_train(self, probe, out):
        H, p, seed = probe.init["num_heads"], probe.init["dropout"], probe.kwargs["dropout_seed"]
        (x,) = probe.args
        train, evald, calls = train_mode_parts(out)
        e_out = expect_tensor(expect_tuple(evald, 2, "(out, weights)")[0], "out")
        t_out, t_w = (
            expect_tensor(t, w)
            for t, w in zip(expect_tuple(train, 2, "(out, weights)"), ("out", "weights"))
        )
        expect_close(e_out, mha_ref64(probe.state, H, x)[0], "out")

        def v(i, q=p, codes=None):
            args = (probe.state, H, x, None, None, None, lambda t: fixed_dropout(t, q, seed))
            if codes is None:
                return lambda: mha_ref64(*args)[i]
            return variants(self.mistakes, mha_ref64, args, pick=lambda o: o[i], codes=codes)

        where = "to the attention weights after softmax, before they multiply v"
        if tuple(t_w.shape) != (x.size(0), H, x.size(1), x.size(1)):
            raise Fail(f"weights has shape {fmt_shape(t_w.shape)} in training mode.")
        mistakes = v(0, codes=["dropout_on_output", "dropout_on_values"])
        mistakes += [(v(0, 0.1), *P_IGNORED)] + v(0, codes=["dropout_on_scores"])
        judge_dropout(t_out, e_out, calls, v(0)(), mistakes, where, "out")
        mistakes = v(1, codes=["weights_before_dropout"])
        judge_dropout(
            t_w, mha_ref64(probe.state, H, x)[1], calls, v(1)(), mistakes, where, "weights"
        )
