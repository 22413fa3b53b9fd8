"""Notebook 03: multi-head attention, checked against a float64 formula of
nn.MultiheadAttention with copied weights (``references.mha64``; tests/checks/test_nb03.py
compares the two)."""

from __future__ import annotations

import torch

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
    named,
    randint,
    randn,
    register,
)
from ...modules import expect_bias, expect_names
from ...parts import locate
from ...probes import (
    ATTENTION_BUILTINS,
    P_IGNORED,
    judge_dropout,
    mask_with_a_key_per_row,
    train_mode_parts,
)
from ...references import mha64
from ...run.modules import fixed_dropout
from ...run.parts import PARTS_KEY
from ...weights import PROJECTIONS, random_state

MESSAGES = {
    "split_without_transpose": "the heads are split without the transpose: view the projection "
    "as (B, T, H, d_head) and then .transpose(1, 2) to (B, H, T, d_head); a direct view as "
    "(B, H, T, d_head) mixes positions and features.",
    "scale_by_d_model": "the scores are divided by sqrt(d_model): each head's dot products have "
    "d_head terms, so scale by sqrt(d_head) = sqrt(d_model // num_heads).",
    "no_scale": "the scores are not scaled: divide by sqrt(d_head).",
    "softmax_over_queries": "softmax is taken over the queries (dim=-2): use dim=-1, the keys.",
    "always_causal": "a causal mask is applied although none was asked for (as nanoGPT's "
    "CausalSelfAttention always does): apply only the `mask` argument, so that the same module "
    "serves encoders (no mask) and decoders (a causal mask passed in).",
    "mask_inverted": "the mask is inverted: True means *may attend* in this series (pass it on "
    "to scaled_dot_product_attention as it is); nn.MultiheadAttention's attn_mask is the one "
    "with True = blocked.",
    "mask_ignored": "the mask is ignored: pass `mask` on to the attention.",
    "mask_after_softmax": "the mask is applied after softmax: fill the scores with -inf before "
    "softmax.",
    "keys_from_query": "the keys come from `query`: project the `key` argument with k_proj.",
    "merge_without_transpose": "the heads are merged without the transpose: (B, H, T, d_head) "
    "-> .transpose(1, 2) -> (B, T, H, d_head) -> reshape to (B, T, d_model); a direct reshape "
    "mixes positions.",
    "weights_times_keys": "the weights multiply the keys: multiply the values v.",
    "value_defaults_to_query": "value defaults to query: when only `key` is given, value "
    "defaults to key (value = key if value is None), so mha(x, memory) takes the keys and the "
    "values from memory.",
    "values_from_query": "the values come from `query`: project the `value` argument with v_proj.",
    "values_from_key": "the values come from `key`: project the `value` argument with v_proj.",
    "dropout_on_output": "dropout is applied to the output: it acts on the attention weights, "
    "weights = self.dropout(weights) before weights @ v.",
    "dropout_on_values": "dropout is applied to the values v: it acts on the attention weights.",
    "dropout_on_scores": "dropout is applied to the scores before softmax: apply it to the "
    "weights after softmax.",
    "weights_before_dropout": "the weights returned are those before dropout: return the "
    "dropped-out weights that multiply v (as nn.MultiheadAttention does).",
}


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

        def variant(i, **kw):
            return lambda: mha64(probe.state, H, query, key, value, mask, **kw)[i]

        def skipped(i, names):  # a projection left out: any of them, the same words
            return [
                (
                    variant(i, skip=(p,)),
                    f"self.{p} is not applied: the {arg} goes through "
                    f"self.{p} (nn.Linear(d_model, d_model)).",
                    "projection_skipped",
                )
                for p, arg in names
            ]

        ref_out, ref_w = mha64(probe.state, H, query, key, value, mask)
        masked = {
            "mask_inverted": [
                variant(1, mask_mode="inverted"),
                variant(1, mask_mode="inverted", fill=-1e9),
            ],
            "mask_ignored": variant(1, mask_mode="ignored"),
            "mask_after_softmax": variant(1, mask_mode="after"),
        }
        mistakes = named(
            MESSAGES,
            split_without_transpose=variant(1, split_transpose=False),
            scale_by_d_model=variant(1, scale="d_model"),
            no_scale=variant(1, scale="none"),
            softmax_over_queries=variant(1, dim=-2),
            # on top of the given mask, or in its place (nanoGPT's mask overwritten)
            always_causal=[
                variant(1, causal=True),
                lambda: mha64(probe.state, H, query, key, value, None, causal=True)[1],
            ],
            **(masked if mask is not None else {}),
            **({"keys_from_query": variant(1, k_from=query)} if key is not query else {}),
        )
        projections = [("q_proj", "query"), ("k_proj", "key")]
        expect_close(got_w, ref_w, "weights", mistakes=mistakes + skipped(1, projections))
        if "key" in probe.kwargs and "value" not in probe.kwargs:
            values = {"value_defaults_to_query": variant(0, v_from=query)}
        else:
            values = {"values_from_query": variant(0, v_from=query)} if value is not query else {}
        values |= {"values_from_key": variant(0, v_from=key)} if value is not key else {}
        mistakes = named(
            MESSAGES,
            merge_without_transpose=variant(0, merge_transpose=False),
            weights_times_keys=variant(0, values="k"),
            **values,
        )
        projections = [("v_proj", "value"), ("out_proj", "merged heads' output")]
        expect_close(got_out, ref_out, "out", mistakes=mistakes + skipped(0, projections))

    def judge_train(self, probe, out):
        H, p, seed = probe.init["num_heads"], probe.init["dropout"], probe.kwargs["dropout_seed"]
        (x,) = probe.args
        train, evald, calls = train_mode_parts(out)
        e_out = expect_tensor(expect_tuple(evald, 2, "(out, weights)")[0], "out")
        t_out, t_w = (
            expect_tensor(t, w)
            for t, w in zip(expect_tuple(train, 2, "(out, weights)"), ("out", "weights"))
        )
        expect_close(e_out, mha64(probe.state, H, x, x, x)[0], "out")

        def v(i, q=p, **kw):
            return lambda: mha64(
                probe.state, H, x, x, x, dropout=lambda t: fixed_dropout(t, q, seed), **kw
            )[i]

        where = "to the attention weights after softmax, before they multiply v"
        if tuple(t_w.shape) != (x.size(0), H, x.size(1), x.size(1)):
            raise Fail(f"weights has shape {fmt_shape(t_w.shape)} in training mode.")
        mistakes = named(
            MESSAGES,
            dropout_on_output=v(0, dropout_at="output"),
            dropout_on_values=v(0, dropout_at="values"),
        )
        mistakes += [(v(0, 0.1), *P_IGNORED)] + named(
            MESSAGES, dropout_on_scores=v(0, dropout_at="scores")
        )
        judge_dropout(t_out, e_out, calls, v(0)(), mistakes, where, "out")
        mistakes = named(MESSAGES, weights_before_dropout=v(1, return_dropped=False))
        judge_dropout(
            t_w, mha64(probe.state, H, x, x, x)[1], calls, v(1)(), mistakes, where, "weights"
        )
