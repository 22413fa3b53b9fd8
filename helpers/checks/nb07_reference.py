"""Notebook 07: the decoder block's references: ``nn.TransformerDecoderLayer`` in float64 with the
probe's weights, and :func:`decoder64`, the same block written out with a switch per known
mistake (:func:`decoder_mistakes` lists them with their messages and codes).
"""

from __future__ import annotations

import torch
from torch import nn

from .modules import (
    DECODER_PARTS,
    to_torch_names,
)
from .references import attn64, ffn64, layer_norm64, residual64

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


def torch_decoder_masks(tgt_mask, memory_mask, B: int, H: int) -> dict:
    """True = may attend (this series) -> PyTorch's True = blocked, in the forms it accepts."""
    kw = {}
    for name, mask in (("tgt", tgt_mask), ("memory", memory_mask)):
        if mask is None:
            continue
        if mask.dim() == 2:  # (T, T) or (T, S)
            kw[f"{name}_mask"] = ~mask
        elif mask.shape[-2] == 1:  # (B, 1, 1, S): key padding
            kw[f"{name}_key_padding_mask"] = ~mask.reshape(mask.shape[0], mask.shape[-1])
        else:  # (B, 1, T, S): one mask per example, repeated per head
            kw[f"{name}_mask"] = ~mask.expand(B, H, *mask.shape[-2:]).reshape(
                B * H, *mask.shape[-2:]
            )
    return kw


def decoder64(
    state: dict,
    x,
    memory,
    num_heads: int,
    *,
    norm_first: bool = True,
    tgt_mask=None,
    memory_mask=None,
    cross_on_self: bool = False,
    norm_memory: bool = False,
    skip_norm: str = "",
    no_residual: str = "",
    no_cross: bool = False,
    reuse_norm1: bool = False,
    annotated_norm: bool = False,
    post_sum_of_norm: bool = False,
    dropout=None,
    skip_dropout: tuple[str, ...] = (),
    dropout_after_sum: bool = False,
    ffn_dropout_at: str = "hidden",
) -> torch.Tensor:
    """The decoder block in float64, with switches for the known mistakes.

    cross_on_self: cross-attention's keys and values are the decoder stream, not memory.
    norm_memory: memory also goes through norm2 (pre-LN). skip_norm: "norm1", "norm2" or "norm3"
    left out. no_residual: "self", "cross" or "ffn" sublayer without its residual. no_cross: the
    cross-attention sublayer left out. reuse_norm1: norm1 for every sublayer. post_sum_of_norm:
    post-LN written x + norm(sublayer(x)). annotated_norm: the Annotated Transformer's LayerNorm.
    dropout ... ffn_dropout_at: training mode, as in :func:`references.block64`, with the
    cross-attention's sites "cross_weights" and "cross_out" besides.
    """
    x, memory = x.double(), memory.double()

    def norm(name, h):
        if name == skip_norm:
            return h
        name = "norm1" if reuse_norm1 else name
        if annotated_norm:  # (x - mean) / (std + eps), unbiased std, eps 1e-6
            w, b = state[f"{name}.weight"], state[f"{name}.bias"]
            return layer_norm64(h, w, b, 1e-6, unbiased=True, eps_inside=False)
        return layer_norm64(h, state[f"{name}.weight"], state[f"{name}.bias"], 1e-5)

    def drop(name):
        return None if dropout is None or name in skip_dropout else dropout

    def self_attn(h):
        return attn64(state, "self_attn.", h, h, num_heads, tgt_mask, drop("weights"))

    def cross_attn(h):
        mem = h if cross_on_self else (norm("norm2", memory) if norm_memory else memory)
        mask = None if cross_on_self else memory_mask
        return attn64(state, "cross_attn.", h, mem, num_heads, mask, drop("cross_weights"))

    def ffn(h):
        d = drop("ffn_hidden")
        return ffn64(state, h, prefix="ffn.", dropout=d, dropout_at=ffn_dropout_at)

    sublayers = [
        ("norm1", self_attn, "self", "attn_out"),
        ("norm2", cross_attn, "cross", "cross_out"),
        ("norm3", ffn, "ffn", "ffn_out"),
    ]
    for name, sub, key, site in sublayers:
        if no_cross and key == "cross":
            continue
        x = residual64(
            x,
            sub,
            lambda h, name=name: norm(name, h),
            norm_first=norm_first,
            keep=0.0 if no_residual == key else 1.0,
            sum_of_norm=post_sum_of_norm,
            drop=drop(site),
            after_sum=dropout_after_sum,
        )
    return x


SUBLAYERS = (("self", "self-attention"), ("cross", "cross-attention"), ("ffn", "feed-forward"))


def decoder_mistakes(v, pre: bool, tgt_mask, memory_mask) -> list[tuple]:
    """(variant, message, slug) of the known mistakes; ``v(**switches)`` makes a variant."""
    mistakes = [
        (
            v(cross_on_self=True),
            "cross-attention attends to the decoder itself: its keys and values must be memory "
            "(the encoder's output), cross_attn(h, memory, memory, mask=memory_mask).",
            "cross_attention_on_itself",
        ),
        (
            v(no_cross=True),
            "memory is not used: the block has three sublayers, self-attention, "
            "cross-attention over memory, feed-forward.",
            "no_cross_attention",
        ),
        (
            v(norm_first=not pre),
            "norm_first is ignored: "
            + (
                "pre-LN is x = x + sublayer(norm(x))."
                if pre
                else "post-LN is x = norm(x + sublayer(x))."
            ),
            "norm_first_ignored",
        ),
        (
            v(reuse_norm1=True),
            "norm1 is used for every sublayer: each sublayer has its own LayerNorm, norm1 for "
            "self-attention, norm2 for cross-attention, norm3 for the feed-forward.",
            "norm1_reused",
        ),
        (
            v(annotated_norm=True),
            "the LayerNorm divides by std + eps with the unbiased std (the Annotated "
            "Transformer's LayerNorm): use LayerNorm(d_model) from helpers.blocks.layers, "
            "(x - mean) / sqrt(var + eps) with the biased variance, as nn.LayerNorm.",
            "annotated_transformer_layernorm",
        ),
    ]
    if pre:
        mistakes.append(
            (
                v(norm_memory=True),
                "memory goes through norm2: only the decoder's stream is normalized, "
                "cross_attn(norm2(x), memory, memory); memory is already normalized by the "
                "encoder.",
                "memory_normalized",
            )
        )
    else:
        mistakes.append(
            (
                v(post_sum_of_norm=True),
                "post-LN is written x + norm(sublayer(x)): the norm comes after the residual "
                "sum, x = norm(x + sublayer(x)).",
                "post_ln_sum_of_norm",
            )
        )
    for i, (key, sub) in enumerate(SUBLAYERS, start=1):
        name = f"norm{i}"
        mistakes.append(
            (
                v(skip_norm=name),
                f"{name} is missing: it belongs to the {sub} sublayer"
                + (f", x = x + {sub}({name}(x))." if pre else f", x = {name}(x + {sub}(x))."),
                f"no_{name}",
            )
        )
        mistakes.append(
            (
                v(no_residual=key),
                f"the residual around {sub} is missing: add the sublayer's output to its input.",
                f"no_{key}_residual",
            )
        )
    if tgt_mask is not None:
        mistakes += [
            (
                v(tgt_mask=None),
                "tgt_mask is ignored: pass it to self-attention, self_attn(h, mask=tgt_mask) "
                "(without it the decoder sees the future).",
                "tgt_mask_ignored",
            ),
            (
                v(tgt_mask=~tgt_mask),
                "tgt_mask is inverted: True means may attend (nn.TransformerDecoderLayer's "
                "masks use True = blocked).",
                "tgt_mask_inverted",
            ),
        ]
    if memory_mask is not None:
        mistakes += [
            (
                v(memory_mask=None),
                "memory_mask is ignored: pass it to cross-attention, "
                "cross_attn(h, memory, memory, mask=memory_mask).",
                "memory_mask_ignored",
            ),
            (
                v(memory_mask=~memory_mask),
                "memory_mask is inverted: True means may attend.",
                "memory_mask_inverted",
            ),
        ]
    if tgt_mask is not None and memory_mask is not None:
        mistakes.append(
            (
                v(tgt_mask=None, memory_mask=None),
                "both masks are ignored: tgt_mask goes to self-attention, memory_mask to "
                "cross-attention.",
                "masks_ignored",
            )
        )
    return mistakes


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
