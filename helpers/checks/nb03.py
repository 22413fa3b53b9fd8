"""Notebook 03: multi-head attention, checked against nn.MultiheadAttention with copied weights."""

from __future__ import annotations

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    Unsupported,
    expect_close,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    randint,
    randn,
)
from .modules import random_state, reference_mha, weight_mistakes
from .probes import (
    ATTENTION_BUILTINS,
    P_IGNORED,
    TrainModeMixin,
    fixed_dropout,
    judge_dropout,
    mask_with_a_key_per_row,
    train_mode_parts,
)
from .references import mha64
from .weights import PROJECTIONS


class MultiHeadAttentionCheck(TrainModeMixin, Exercise):
    id = "03.MultiHeadAttention"
    title = "multi-head attention"
    points = 4.0
    kind = "module"
    forbid = ATTENTION_BUILTINS + ("torch.nn.MultiheadAttention.forward",)

    def probes(self, gen):
        yield Probe(
            "attribute names, MultiHeadAttention(d_model=12, num_heads=3)",
            runner="module_info",
            init={"d_model": 12, "num_heads": 3},
        )
        yield Probe(
            "attribute names, MultiHeadAttention(d_model=8, num_heads=2, bias=False)",
            runner="module_info",
            init={"d_model": 8, "num_heads": 2, "bias": False},
        )
        yield Probe(
            "self-attention, d_model=12, num_heads=3, x (2, 5, 12), key and value left out",
            runner="module",
            init={"d_model": 12, "num_heads": 3},
            state=random_state(gen, 12),
            args=(randn(2, 5, 12, generator=gen),),
        )
        T = 6
        yield Probe(
            "self-attention with a causal mask (6, 6), d_model=8, num_heads=2",
            runner="module",
            init={"d_model": 8, "num_heads": 2},
            state=random_state(gen, 8),
            args=(randn(3, T, 8, generator=gen),),
            kwargs={"mask": torch.ones(T, T, dtype=torch.bool).tril()},
        )
        yield Probe(
            "attention with key != value, 4 queries, 4 keys, d_model=8, num_heads=2",
            runner="module",
            init={"d_model": 8, "num_heads": 2},
            state=random_state(gen, 8),
            args=(randn(2, 4, 8, generator=gen),),
            kwargs={"key": randn(2, 4, 8, generator=gen), "value": randn(2, 4, 8, generator=gen)},
        )
        yield Probe(
            "key given and value left out (value defaults to key), 4 queries, 4 keys, "
            "d_model=8, num_heads=2",
            runner="module",
            init={"d_model": 8, "num_heads": 2},
            state=random_state(gen, 8),
            args=(randn(2, 4, 8, generator=gen),),
            kwargs={"key": randn(2, 4, 8, generator=gen)},
        )
        yield Probe(
            "cross-attention, key != value, 5 queries, 3 keys, d_model=6, num_heads=2",
            runner="module",
            init={"d_model": 6, "num_heads": 2},
            state=random_state(gen, 6),
            args=(randn(2, 5, 6, generator=gen),),
            kwargs={"key": randn(2, 3, 6, generator=gen), "value": randn(2, 3, 6, generator=gen)},
        )
        lengths = torch.tensor([7, 3])
        pad = (torch.arange(7)[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, T_k)
        memory = randn(2, 7, 12, generator=gen)
        yield Probe(
            "cross-attention, 4 queries, 7 keys, padding mask (2, 1, 1, 7), "
            "d_model=12, num_heads=4",
            runner="module",
            init={"d_model": 12, "num_heads": 4},
            state=random_state(gen, 12),
            args=(randn(2, 4, 12, generator=gen),),
            kwargs={"key": memory, "value": memory, "mask": pad},
        )
        yield Probe(
            "random mask (2, 1, 4, 4), bias=False, d_model=8, num_heads=4",
            runner="module",
            init={"d_model": 8, "num_heads": 4, "bias": False},
            state=random_state(gen, 8, bias=False),
            args=(randn(2, 4, 8, generator=gen),),
            kwargs={"mask": mask_with_a_key_per_row(gen, 2, 1, 4, 4)},
        )
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
        if isinstance(out, Unsupported) or (probe.runner != "module" and not isinstance(out, dict)):
            what = out.type_name if isinstance(out, Unsupported) else type(out).__name__
            raise Fail(
                f"got {what}: MultiHeadAttention(...) should build an nn.Module (subclass "
                "nn.Module and call super().__init__()) whose forward returns (out, weights).",
                "not_a_module",
            )
        if probe.runner == "module_info":
            return self.judge_info(probe, out)
        if probe.runner == "train_mode":
            return self.judge_train(probe, out)
        return self.judge_forward(probe, out)

    def judge_info(self, probe, info):
        d = probe.init["d_model"]
        bias = probe.init.get("bias", True)
        expected = {f"{n}.weight": [d, d] for n in PROJECTIONS}
        if bias:
            expected.update({f"{n}.bias": [d] for n in PROJECTIONS})
        params = info["parameters"]
        missing = [n for n in expected if n not in params]
        for name in PROJECTIONS:
            kind = info["children"].get(name)
            if kind is None:
                raise Fail(
                    f"the module has no attribute {name!r}: name the projections q_proj, "
                    "k_proj, v_proj and out_proj (nn.Linear(d_model, d_model)), as "
                    "nn.MultiheadAttention does, so that weights can be copied.",
                    "projection_names",
                )
            if kind != "Linear":
                raise Fail(
                    f"{name} is a {kind}, expected nn.Linear(d_model, d_model).", "not_linear"
                )
        extra = sorted(n for n in params if n not in expected)
        if not bias and any(n.endswith(".bias") for n in extra):
            raise Fail(
                "with bias=False the projections must have no bias: pass bias=bias to each "
                "nn.Linear.",
                "bias_ignored",
            )
        if missing:
            if bias and all(n.endswith(".bias") for n in missing):
                raise Fail(
                    "the projections have no bias with bias=True: pass bias=bias to nn.Linear.",
                    "bias_ignored",
                )
            raise Fail(f"missing parameters {missing}.")
        for name, shape in expected.items():
            if params[name] != shape:
                raise Fail(
                    f"{name} has shape {tuple(params[name])}, expected {tuple(shape)}: every "
                    "projection is nn.Linear(d_model, d_model); the heads are a reshape, not "
                    "separate layers.",
                    "projection_shape",
                )
        if extra:
            raise Fail(
                f"unexpected parameters {extra}: the module should hold exactly "
                "4·d_model² + 4·d_model parameters, in q_proj, k_proj, v_proj and out_proj.",
                "extra_parameters",
            )

    def judge_forward(self, probe, out):
        H = probe.init["num_heads"]
        query = probe.args[0]
        key = probe.kwargs.get("key", query)
        value = probe.kwargs.get("value", key)
        mask = probe.kwargs.get("mask")
        B, T_q, d_model = query.shape
        T_k = key.size(1)
        got_out, got_w = expect_tuple(out, 2, "(out, weights)")
        got_out, got_w = expect_tensor(got_out, "out"), expect_tensor(got_w, "weights")
        if tuple(got_w.shape) == (B, T_q, T_k) and H > 1:
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}: return the weights of every "
                f"head, shape (B, H, T_q, T_k) = ({B}, {H}, {T_q}, {T_k}), not their average.",
                "weights_averaged",
            )
        if tuple(got_w.shape) == (B, H, T_q, T_q) and T_q != T_k:
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}, expected (B, H, T_q, T_k) = "
                f"({B}, {H}, {T_q}, {T_k}): the keys come from `query`. In cross-attention "
                "project the `key` argument with k_proj (key defaults to query only when "
                "it is None).",
                "keys_from_query",
            )
        if tuple(got_w.shape) == (B, 1, T_q, T_k) and H > 1:
            raise Fail(
                f"weights has one head, shape {fmt_shape(got_w.shape)}: num_heads = {H} is "
                "ignored. Split the projections into heads, (B, T, d_model) -> (B, H, T, "
                "d_head) with d_head = d_model // num_heads.",
                "num_heads_ignored",
            )
        if tuple(got_w.shape) != (B, H, T_q, T_k):
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}, expected (B, H, T_q, T_k) = "
                f"({B}, {H}, {T_q}, {T_k}).",
                "wrong_shape",
            )
        if tuple(got_out.shape) != (B, T_q, d_model):
            raise Fail(
                f"out has shape {fmt_shape(got_out.shape)}, expected (B, T_q, d_model) = "
                f"({B}, {T_q}, {d_model}): merge the heads back and apply out_proj.",
                "wrong_shape",
            )
        for t, what in ((got_out, "out"), (got_w, "weights")):
            if t.dtype != query.dtype:
                raise Fail(f"{what} has dtype {t.dtype}, expected {query.dtype}.", "wrong_dtype")
        ref_out, ref_w = reference_mha(probe.state, H, query, key, value, mask)

        def variant(i, **kw):
            return lambda: mha64(probe.state, H, query, key, value, mask, **kw)[i]

        w_mistakes = weight_mistakes(variant, mask)
        if key is not query:
            w_mistakes.append(
                (
                    variant(1, k_from=query),
                    "the keys come from `query`: project the `key` argument with k_proj.",
                    "keys_from_query",
                )
            )
        expect_close(got_w, ref_w, "weights", mistakes=w_mistakes)
        o_mistakes = [
            (
                variant(0, merge_transpose=False),
                "the heads are merged without the transpose: (B, H, T, d_head) -> "
                ".transpose(1, 2) -> (B, T, H, d_head) -> reshape to (B, T, d_model); "
                "a direct reshape mixes positions.",
                "merge_without_transpose",
            ),
            (
                variant(0, out_proj=False),
                "out_proj is not applied: the merged heads go through self.out_proj at the end.",
                "no_out_proj",
            ),
            (
                variant(0, values="k"),
                "the weights multiply the keys: multiply the values v.",
                "weights_times_keys",
            ),
        ]
        if "key" in probe.kwargs and "value" not in probe.kwargs:
            o_mistakes.append(
                (
                    variant(0, v_from=query),
                    "value defaults to query: when only `key` is given, value defaults to key "
                    "(value = key if value is None), so mha(x, memory) takes the keys and the "
                    "values from memory.",
                    "value_defaults_to_query",
                )
            )
        elif value is not query:
            o_mistakes.append(
                (
                    variant(0, v_from=query),
                    "the values come from `query`: project the `value` argument with v_proj.",
                    "values_from_query",
                )
            )
        if value is not key:
            o_mistakes.append(
                (
                    variant(0, v_from=key),
                    "the values come from `key`: project the `value` argument with v_proj.",
                    "values_from_key",
                )
            )
        expect_close(got_out, ref_out, "out", mistakes=o_mistakes)

    def judge_train(self, probe, out):
        H, p, seed = probe.init["num_heads"], probe.init["dropout"], probe.kwargs["dropout_seed"]
        (x,) = probe.args
        train, evald, calls = train_mode_parts(out)
        e_out, _ = expect_tuple(evald, 2, "(out, weights)")
        t_out, t_w = expect_tuple(train, 2, "(out, weights)")
        t_out, t_w = expect_tensor(t_out, "out"), expect_tensor(t_w, "weights")
        expect_close(expect_tensor(e_out, "out"), reference_mha(probe.state, H, x, x, x)[0])

        def v(i, **kw):
            def variant():
                drop = lambda t: fixed_dropout(t, p, seed)  # noqa: E731
                return mha64(probe.state, H, x, x, x, dropout=drop, **kw)[i]

            return variant

        where = "to the attention weights after softmax, before they multiply v"
        if tuple(t_w.shape) != (x.size(0), H, x.size(1), x.size(1)):
            raise Fail(f"weights has shape {fmt_shape(t_w.shape)} in training mode.")
        judge_dropout(
            t_out,
            expect_tensor(e_out, "out"),
            calls,
            v(0)(),
            [
                (
                    v(0, dropout_at="output"),
                    "dropout is applied to the output: it acts on the attention weights, "
                    "weights = self.dropout(weights) before weights @ v.",
                    "dropout_on_output",
                ),
                (
                    v(0, dropout_at="values"),
                    "dropout is applied to the values v: it acts on the attention weights.",
                    "dropout_on_values",
                ),
                (
                    lambda: mha64(
                        probe.state, H, x, x, x, dropout=lambda t: fixed_dropout(t, 0.1, seed)
                    )[0],
                    *P_IGNORED,
                ),
                (
                    v(0, dropout_at="scores"),
                    "dropout is applied to the scores before softmax: apply it to the weights "
                    "after softmax.",
                    "dropout_on_scores",
                ),
            ],
            where,
            "out",
        )
        judge_dropout(
            t_w,
            mha64(probe.state, H, x, x, x)[1],
            calls,
            v(1)(),
            [
                (
                    v(1, return_dropped=False),
                    "the weights returned are those before dropout: return the dropped-out "
                    "weights that multiply v (as nn.MultiheadAttention does).",
                    "weights_before_dropout",
                )
            ],
            where,
            "weights",
        )
