"""Notebook 03: multi-head attention, checked against nn.MultiheadAttention with copied weights."""

from __future__ import annotations

import math

import torch
from torch import nn

from .framework import (
    Exercise,
    Fail,
    Probe,
    Unsupported,
    expect_close,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    randn,
)
from .probes import ATTENTION_BUILTINS, mask_with_a_key_per_row
from .references import PROJECTIONS, mha64


def random_state(gen, d_model: int, bias: bool = True) -> dict:
    """Weights for q_proj, k_proj, v_proj, out_proj (a little larger than nn.Linear's init,
    so that the attention is not nearly uniform and the mistakes show)."""
    state = {}
    for name in PROJECTIONS:
        state[f"{name}.weight"] = randn(d_model, d_model, generator=gen) * (
            1.5 / math.sqrt(d_model)
        )
        if bias:
            state[f"{name}.bias"] = randn(d_model, generator=gen) * 0.1
    return state


def reference_mha(state: dict, num_heads: int, query, key, value, mask=None):
    """nn.MultiheadAttention(batch_first=True) in float64 with the learner's weights copied in
    (in_proj_weight is q_proj, k_proj and v_proj stacked). Returns (out, per-head weights)."""
    d_model = query.size(-1)
    bias = "q_proj.bias" in state
    ref = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True).double().eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([state[f"{n}.weight"] for n in PROJECTIONS[:3]]))
        ref.out_proj.weight.copy_(state["out_proj.weight"])
        if bias:
            ref.in_proj_bias.copy_(torch.cat([state[f"{n}.bias"] for n in PROJECTIONS[:3]]))
            ref.out_proj.bias.copy_(state["out_proj.bias"])
        attn_mask = None
        if mask is not None:
            # nn.MultiheadAttention: True = *blocked*, one (T_q, T_k) mask per batch x head
            B, T_q, T_k = query.size(0), query.size(1), key.size(1)
            full = mask.expand(B, num_heads, T_q, T_k)
            attn_mask = ~full.reshape(B * num_heads, T_q, T_k)
        out, weights = ref(
            query.double(),
            key.double(),
            value.double(),
            attn_mask=attn_mask,
            need_weights=True,
            average_attn_weights=False,
        )
    return out, weights


class MultiHeadAttentionCheckCheck(Exercise):
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
        )

    def run_train_mode(self, probe, candidate, device):
        """Like the "module" runner, in training mode; also returns the eval-mode output."""
        from .runner import to_device

        module = candidate(**probe.init)
        if not isinstance(module, nn.Module):
            return module
        module.load_state_dict(probe.state)
        module.to(device)
        (x,) = to_device(probe.args, device)
        with torch.no_grad():
            module.train()
            train_out = module(x)
            module.eval()
            eval_out = module(x)
        return {"train": train_out, "eval": eval_out}

    # ----------------------------------------------------------------------- judging

    def judge(self, probe, out):
        if isinstance(out, Unsupported) or (probe.runner != "module" and not isinstance(out, dict)):
            what = out.type_name if isinstance(out, Unsupported) else type(out).__name__
            raise Fail(
                f"got {what}: MultiHeadAttention(...) should build an nn.Module (subclass "
                "nn.Module and call super().__init__()) whose forward returns (out, weights)."
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
                    "nn.MultiheadAttention does, so that weights can be copied."
                )
            if kind != "Linear":
                raise Fail(f"{name} is a {kind}, expected nn.Linear(d_model, d_model).")
        extra = sorted(n for n in params if n not in expected)
        if not bias and any(n.endswith(".bias") for n in extra):
            raise Fail(
                "with bias=False the projections must have no bias: pass bias=bias to each "
                "nn.Linear."
            )
        if missing:
            if bias and all(n.endswith(".bias") for n in missing):
                raise Fail(
                    "the projections have no bias with bias=True: pass bias=bias to nn.Linear."
                )
            raise Fail(f"missing parameters {missing}.")
        for name, shape in expected.items():
            if params[name] != shape:
                raise Fail(
                    f"{name} has shape {tuple(params[name])}, expected {tuple(shape)}: every "
                    "projection is nn.Linear(d_model, d_model); the heads are a reshape, not "
                    "separate layers."
                )
        if extra:
            raise Fail(
                f"unexpected parameters {extra}: the module should hold exactly "
                "4·d_model² + 4·d_model parameters, in q_proj, k_proj, v_proj and out_proj."
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
                f"head, shape (B, H, T_q, T_k) = ({B}, {H}, {T_q}, {T_k}), not their average."
            )
        if tuple(got_w.shape) == (B, H, T_q, T_q) and T_q != T_k:
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}, expected (B, H, T_q, T_k) = "
                f"({B}, {H}, {T_q}, {T_k}): the keys come from `query`. In cross-attention "
                "project the `key` argument with k_proj (key defaults to query only when "
                "it is None)."
            )
        if tuple(got_w.shape) != (B, H, T_q, T_k):
            raise Fail(
                f"weights has shape {fmt_shape(got_w.shape)}, expected (B, H, T_q, T_k) = "
                f"({B}, {H}, {T_q}, {T_k})."
            )
        if tuple(got_out.shape) != (B, T_q, d_model):
            raise Fail(
                f"out has shape {fmt_shape(got_out.shape)}, expected (B, T_q, d_model) = "
                f"({B}, {T_q}, {d_model}): merge the heads back and apply out_proj."
            )
        for t, what in ((got_out, "out"), (got_w, "weights")):
            if t.dtype != query.dtype:
                raise Fail(f"{what} has dtype {t.dtype}, expected {query.dtype}.")
        ref_out, ref_w = reference_mha(probe.state, H, query, key, value, mask)

        def variant(i, **kw):
            return lambda: mha64(probe.state, H, query, key, value, mask, **kw)[i]

        inverted = (
            "the mask is inverted: True means *may attend* in this series (pass it on to "
            "scaled_dot_product_attention as it is); nn.MultiheadAttention's attn_mask is "
            "the one with True = blocked."
        )
        w_mistakes = [
            (
                variant(1, split_transpose=False),
                "the heads are split without the transpose: view the projection as (B, T, H, "
                "d_head) "
                "and then .transpose(1, 2) to (B, H, T, d_head); a direct view as (B, H, T, "
                "d_head) "
                "mixes positions and features.",
            ),
            (
                variant(1, scale="d_model"),
                "the scores are divided by sqrt(d_model): each head's dot products have d_head "
                "terms, "
                "so scale by sqrt(d_head) = sqrt(d_model // num_heads).",
            ),
            (variant(1, scale="none"), "the scores are not scaled: divide by sqrt(d_head)."),
            (
                variant(1, dim=-2),
                "softmax is taken over the queries (dim=-2): use dim=-1, the keys.",
            ),
        ]
        if mask is not None:
            w_mistakes += [
                (variant(1, mask_mode="inverted"), inverted),
                (variant(1, mask_mode="inverted", fill=-1e9), inverted),
                (
                    variant(1, mask_mode="ignored"),
                    "the mask is ignored: pass `mask` on to the attention.",
                ),
                (
                    variant(1, mask_mode="after"),
                    "the mask is applied after softmax: fill the scores with -inf before softmax.",
                ),
            ]
        if key is not query:
            w_mistakes.append(
                (
                    variant(1, k_from=query),
                    "the keys come from `query`: project the `key` argument with k_proj.",
                )
            )
        expect_close(got_w, ref_w, "weights", mistakes=w_mistakes)
        o_mistakes = [
            (
                variant(0, merge_transpose=False),
                "the heads are merged without the transpose: (B, H, T, d_head) -> "
                ".transpose(1, 2) -> (B, T, H, d_head) -> reshape to (B, T, d_model); "
                "a direct reshape mixes positions.",
            ),
            (
                variant(0, out_proj=False),
                "out_proj is not applied: the merged heads go through self.out_proj at the end.",
            ),
            (variant(0, values="k"), "the weights multiply the keys: multiply the values v."),
        ]
        if value is not query:
            o_mistakes.append(
                (
                    variant(0, v_from=query),
                    "the values come from `query`: project the `value` argument with v_proj.",
                )
            )
        if value is not key:
            o_mistakes.append(
                (
                    variant(0, v_from=key),
                    "the values come from `key`: project the `value` argument with v_proj.",
                )
            )
        expect_close(got_out, ref_out, "out", mistakes=o_mistakes)

    def judge_train(self, probe, out):
        H = probe.init["num_heads"]
        (x,) = probe.args
        if not isinstance(out, dict) or set(out) != {"train", "eval"}:
            raise Fail("the module did not run in training mode.")
        train = expect_tuple(out["train"], 2, "(out, weights)")
        evald = expect_tuple(out["eval"], 2, "(out, weights)")
        t_out, t_w = expect_tensor(train[0], "out"), expect_tensor(train[1], "weights")
        e_out = expect_tensor(evald[0], "out")
        ref_out, ref_w = reference_mha(probe.state, H, x, x, x)
        expect_close(e_out, ref_out, "out in eval mode")
        if close_enough(t_out, e_out):
            raise Fail(
                "with dropout=0.5 the training-mode output equals the eval-mode output: "
                "apply dropout (self.dropout = nn.Dropout(dropout)) to the attention weights."
            )
        if tuple(t_w.shape) != tuple(ref_w.shape):
            raise Fail(
                f"weights has shape {fmt_shape(t_w.shape)}, expected {fmt_shape(ref_w.shape)}."
            )
        w, r = t_w.double(), ref_w
        dropped = w.abs() < 1e-12
        if dropped.any():
            # dropout zeroes weights and scales the others by 1 / (1 - p) = 2
            if not torch.allclose(w[~dropped], 2 * r[~dropped], atol=1e-5, rtol=1e-4):
                raise Fail(
                    "in training mode the kept attention weights should be the eval weights "
                    "scaled by 1 / (1 - dropout); use nn.Dropout on the weights after softmax."
                )
            # the output must use the dropped-out weights
            expect_close(t_out, mha_from_weights(probe.state, H, x, w), "out in training mode")
        elif not torch.allclose(w, r, atol=1e-5, rtol=1e-4):
            raise Fail(
                "in training mode the weights are neither the softmax weights nor their "
                "dropped-out version."
            )


def close_enough(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), atol=1e-6, rtol=1e-5)


def mha_from_weights(state: dict, num_heads: int, x, weights):
    """out_proj(merge(weights @ v)) for given per-head weights, in float64."""
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    v = x.double() @ state["v_proj.weight"].double().T
    if "v_proj.bias" in state:
        v = v + state["v_proj.bias"].double()
    v = v.view(B, T, num_heads, d_head).transpose(1, 2)
    merged = (weights.double() @ v).transpose(1, 2).reshape(B, -1, d_model)
    out = merged @ state["out_proj.weight"].double().T
    return out + state["out_proj.bias"].double() if "out_proj.bias" in state else out
