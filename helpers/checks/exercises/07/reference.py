"""Notebook 07: the decoder block's references: ``nn.TransformerDecoderLayer`` in float64 with the
probe's weights, and :func:`decoder64`, the same block written out with a switch per known
mistake (:func:`decoder_mistakes` lists them with their messages and codes).
"""

from __future__ import annotations

import itertools

import torch
from torch import nn

from ...references import attn64, ffn64, layer_norm64, residual64
from ...weights import DECODER_PARTS, to_torch_names, torch_masks

# --------------------------------------------------------------------------- the decoder block


def torch_decoder_layer(init: dict, state: dict) -> nn.TransformerDecoderLayer:
    layer = nn.TransformerDecoderLayer(
        init["d_model"],
        init["num_heads"],
        init["d_ff"],
        dropout=0.0,
        batch_first=True,
        norm_first=init.get("norm_first", True),
        dtype=torch.float64,
    )
    layer.load_state_dict({k: v.double() for k, v in to_torch_names(state, DECODER_PARTS).items()})
    return layer.train()  # dropout is 0.0; training mode keeps it off the fused path


def torch_decoder_masks(tgt_mask, memory_mask, T: int, S: int) -> dict:
    """True = may attend (this series) -> nn.TransformerDecoderLayer's masks (True = blocked):
    (T, T) or (T, S) as attention masks, (B, 1, 1, S) as key padding."""
    kw = {}
    for name, mask, n in (("tgt", tgt_mask, T), ("memory", memory_mask, S)):
        kw.update({k.replace("src", name): m for k, m in torch_masks(mask, n).items()})
    return kw


SUBLAYERS = (("self", "self-attention"), ("cross", "cross-attention"), ("ffn", "feed-forward"))
NORMS = {"self": "norm1", "cross": "norm2", "ffn": "norm3"}  # each sublayer's LayerNorm
ORDER = ("self", "cross", "ffn")


def decoder64(
    state, x, memory, num_heads: int, *, norm_first=True, tgt_mask=None, memory_mask=None,
    order=ORDER, norms=None, form=None, cross_on_self=False, norm_memory=False,
    annotated_norm=False, post_sum_of_norm=False, dropout=None, skip_dropout=(),
    dropout_after_sum=False, ffn_dropout_at="hidden",
) -> torch.Tensor:  # fmt: skip
    """The decoder block in float64, with switches for the known mistakes.

    order: the sublayers run, by key ("self", "cross", "ffn"; one left out: skipped). norms:
    each sublayer's norm ({key: "norm1" ...}; None: no norm). form: {key: "identity" (the
    sublayer's call left out, its normalized input added), "minus" (its output subtracted),
    "no_residual"}. cross_on_self: cross-attention's keys and values from the decoder stream.
    norm_memory: memory also goes through norm2 (pre-LN). post_sum_of_norm: post-LN written
    x + norm(sublayer(x)). annotated_norm: the Annotated Transformer's LayerNorm. dropout ...
    ffn_dropout_at: training mode, as in :func:`references.block64`, with the cross-attention's
    sites "cross_weights" and "cross_out" besides.
    """
    x, memory, norms, form = x.double(), memory.double(), {**NORMS, **(norms or {})}, form or {}

    def norm(name, h):
        if name is None:
            return h
        w, b = state[f"{name}.weight"], state[f"{name}.bias"]
        if annotated_norm:  # (x - mean) / (std + eps), unbiased std, eps 1e-6
            return layer_norm64(h, w, b, 1e-6, unbiased=True, eps_inside=False)
        return layer_norm64(h, w, b, 1e-5)

    def drop(name):
        return None if dropout is None or name in skip_dropout else dropout

    def cross_attn(h):
        mem = h if cross_on_self else (norm("norm2", memory) if norm_memory else memory)
        mask = None if cross_on_self else memory_mask
        return attn64(state, "cross_attn.", h, mem, num_heads, mask, drop("cross_weights"))

    subs = {
        "self": (lambda h: attn64(state, "self_attn.", h, h, num_heads, tgt_mask, drop("weights"))),
        "cross": cross_attn,
        "ffn": lambda h: ffn64(
            state, h, prefix="ffn.", dropout=drop("ffn_hidden"), dropout_at=ffn_dropout_at
        ),
    }
    sites = {"self": "attn_out", "cross": "cross_out", "ffn": "ffn_out"}
    for key in order:
        f, how = subs[key], form.get(key)
        f = (lambda h: h) if how == "identity" else (lambda h, f=f: -f(h)) if how == "minus" else f
        x = residual64(
            x, f, lambda h, n=norms[key]: norm(n, h), norm_first=norm_first,
            keep=0.0 if how == "no_residual" else 1.0, sum_of_norm=post_sum_of_norm,
            drop=drop(sites[key]), after_sum=dropout_after_sum,
        )  # fmt: skip
    return x


DECODER_MISTAKES = {
    "cross_attention_on_itself": "cross-attention attends to the decoder itself: its keys and "
    "values must be memory (the encoder's output), cross_attn(h, memory, memory, "
    "mask=memory_mask).",
    "no_cross_attention": "memory is not used: the block has three sublayers, self-attention, "
    "cross-attention over memory, feed-forward.",
    "norm_first_ignored": "norm_first is ignored: pre-LN is x = x + sublayer(norm(x)), post-LN "
    "x = norm(x + sublayer(x)).",
    "annotated_transformer_layernorm": "the LayerNorm divides by std + eps with the unbiased std "
    "(the Annotated Transformer's LayerNorm): use LayerNorm(d_model) from helpers.blocks.layers, "
    "(x - mean) / sqrt(var + eps) with the biased variance, as nn.LayerNorm.",
    "memory_normalized": "memory goes through norm2: only the decoder's stream is normalized, "
    "cross_attn(norm2(x), memory, memory); memory is already normalized by the encoder.",
    "post_ln_sum_of_norm": "post-LN is written x + norm(sublayer(x)): the norm comes after the "
    "residual sum, x = norm(x + sublayer(x)).",
    "returns_input": "the block returns its input x unchanged: run the three sublayers, "
    "self-attention, cross-attention over memory, feed-forward, and return the result.",
    "no_sublayer": "the {sub} sublayer is missing: the block runs three, self-attention, "
    "cross-attention over memory, feed-forward, each with its residual and its norm.",
    "sublayer_not_called": "the {sub} sublayer adds its (normalized) input instead of its "
    "output: call the {sub} on it, x + {sub}(norm(x)) (pre-LN) or norm(x + {sub}(x)).",
    "residual_subtracted": "the {sub} sublayer's output is subtracted: the residual is a sum, "
    "x + {sub}(...).",
    "no_residual": "the residual around {sub} is missing: add the sublayer's output to its input.",
    "no_norm": "{norm} is missing: it belongs to the {sub} sublayer.",
    "sublayers_out_of_order": "the sublayers run in the order {order}: self-attention first "
    "(the decoder's own tokens), then cross-attention over memory, then the feed-forward.",
    "norms_swapped": "the norms are used in another order ({norms}): norm1 goes with "
    "self-attention, norm2 with cross-attention, norm3 with the feed-forward.",
    "norm1_reused": "norm1 is used for every sublayer: each sublayer has its own LayerNorm, norm1 "
    "for self-attention, norm2 for cross-attention, norm3 for the feed-forward.",
    "tgt_mask_ignored": "tgt_mask is ignored: pass it to self-attention, self_attn(h, "
    "mask=tgt_mask) (without it the decoder sees the future).",
    "tgt_mask_inverted": "tgt_mask is inverted: True means may attend (nn.TransformerDecoderLayer's"
    " masks use True = blocked).",
    "memory_mask_ignored": "memory_mask is ignored: pass it to cross-attention, cross_attn(h, "
    "memory, memory, mask=memory_mask).",
    "memory_mask_inverted": "memory_mask is inverted: True means may attend.",
    "masks_ignored": "both masks are ignored: tgt_mask goes to self-attention, memory_mask to "
    "cross-attention.",
}
NAMES = dict(SUBLAYERS)


def decoder_mistakes(v, pre: bool, tgt_mask, memory_mask) -> list[tuple]:
    """(variant, message, code) of the known mistakes; ``v(**switches)`` makes a variant: the
    sublayers one at a time (left out, not called, subtracted, without residual or norm), their
    order and their norms permuted, the masks."""
    table = []

    def add(code, variant, **fields):
        table.append((variant, DECODER_MISTAKES[code].format(**fields), code))

    add("cross_attention_on_itself", v(cross_on_self=True))
    add("returns_input", v(order=()))
    add("no_cross_attention", v(order=("self", "ffn")))
    add("norm_first_ignored", v(norm_first=not pre))
    add("norm1_reused", v(norms=dict.fromkeys(ORDER, "norm1")))
    add("annotated_transformer_layernorm", v(annotated_norm=True))
    add("memory_normalized" if pre else "post_ln_sum_of_norm",
        v(norm_memory=True) if pre else v(post_sum_of_norm=True))  # fmt: skip
    for key, sub in SUBLAYERS:
        add("no_norm", v(norms={key: None}), norm=NORMS[key], sub=sub)
        add("no_residual", v(form={key: "no_residual"}), sub=sub)
        add("sublayer_not_called", v(form={key: "identity"}), sub=sub)
        add("residual_subtracted", v(form={key: "minus"}), sub=sub)
        if key != "cross":
            add("no_sublayer", v(order=tuple(k for k in ORDER if k != key)), sub=sub)
    for order in itertools.permutations(ORDER):
        if order != ORDER:
            add("sublayers_out_of_order", v(order=order), order=", ".join(NAMES[k] for k in order))
    for names in itertools.permutations(NORMS.values()):
        if names != tuple(NORMS.values()):
            said = ", ".join(f"{n} for {NAMES[k]}" for k, n in zip(ORDER, names))
            add("norms_swapped", v(norms=dict(zip(ORDER, names))), norms=said)
    if tgt_mask is not None:
        add("tgt_mask_ignored", v(tgt_mask=None))
        add("tgt_mask_inverted", v(tgt_mask=~tgt_mask))
    if memory_mask is not None:
        add("memory_mask_ignored", v(memory_mask=None))
        add("memory_mask_inverted", v(memory_mask=~memory_mask))
    if tgt_mask is not None and memory_mask is not None:
        add("masks_ignored", v(tgt_mask=None, memory_mask=None))
    return table


# the misplacements the decoder-block check replays: (skip, moved, message, slug)
BLOCK_MISPLACEMENTS = [
    (
        {"all"},
        (),
        "in training mode no dropout is applied: pass `dropout` on to every sublayer "
        "and use it (model.train() must change the output).",
        "no_dropout",
    ),
    (
        {"attn"},
        (),
        "no dropout on the attention weights: build the attention with "
        "MultiHeadAttention(d_model, num_heads, dropout).",
        "no_attention_dropout",
    ),
    (
        {"ffn"},
        (),
        "no dropout inside the feed-forward: build it with FeedForward(d_model, d_ff, dropout).",
        "no_ffn_inner_dropout",
    ),
    (
        {"res"},
        (),
        "no dropout on the sublayers' outputs: apply dropout to each sublayer's output before "
        "the residual sum, x + dropout(sublayer(...)).",
        "no_residual_dropout",
    ),
    (
        (),
        {"res_after_sum"},
        "dropout is applied after the residual sum, to x + sublayer(...): apply it to the "
        "sublayer's output only, x + dropout(sublayer(...)).",
        "dropout_after_residual_sum",
    ),
    (
        (),
        {"ffn_after_linear2"},
        "the feed-forward's dropout comes after linear2: it belongs between the activation "
        "and linear2 (FeedForward(d_model, d_ff, dropout) does that).",
        "ffn_dropout_after_linear2",
    ),
]
