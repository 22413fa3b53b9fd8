"""Notebook 06: the encoder's float64 reference (PyTorch's own layers with the probe's weights),
its attention maps' wrong variants, its parameter names, random states, and loading.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ...framework import randn
from ...mistakes import entries, variants
from ...references import block64, layer_norm64, sinusoidal64, substate
from ...weights import block_names, block_state, torch_layer, torch_masks
from .catalogue import CATALOGUE

# --------------------------------------------------------------------------- the encoder


# TransformerEncoder's arguments in the check's small cases (encoder_init(**kw) overrides them)
ENCODER_INIT = {"vocab_size": 11, "d_model": 8, "num_heads": 2, "num_layers": 2, "d_ff": 16}
ENCODER_INIT["max_len"] = 32


def encoder_init(**kw) -> dict:
    return {**ENCODER_INIT, **kw}


def encoder_state(gen: torch.Generator, init: dict) -> dict:
    """Random weights under the contract's names (positional table included)."""
    d, d_ff = init["d_model"], init["d_ff"]
    st = {"embedding.weight": randn(init["vocab_size"], d, generator=gen) / math.sqrt(d)}
    st["pos_encoding.pe"] = sinusoidal64(init.get("max_len", 512), d).float()
    for i in range(init["num_layers"]):
        st.update(block_state(gen, d, d_ff, f"layers.{i}."))
    st["norm.weight"] = 1.0 + 0.3 * randn(d, generator=gen)
    st["norm.bias"] = 0.2 * randn(d, generator=gen)
    return st


def torch_layers(init: dict, state: dict, norm_first: bool) -> list[nn.TransformerEncoderLayer]:
    """PyTorch's layers in float64 with layer i's weights (see ``torch_layer``)."""
    layer_init = {**init, "norm_first": norm_first}
    return [
        torch_layer(layer_init, substate(state, f"layers.{i}.")) for i in range(init["num_layers"])
    ]


def encoder64(
    init: dict,
    state: dict,
    tokens: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    norm_first: bool = True,
    maps: bool = False,
    maps_on: str = "input",
):
    """The encoder in float64, PyTorch's layers (the known mistakes: edits of
    TransformerEncoder.encoder_ref64, exercises/06/catalogue.py).

    maps: return the per-layer (B, H, T, T) weights; maps_on: "input" (right), "raw" (pre-LN
    weights taken on the un-normalized input), "embedding" (every layer fed the embedding),
    "normed" (post-LN blocks' weights taken on norm1(x), as if they were pre-LN).
    """
    d = init["d_model"]
    T = tokens.shape[1]
    x = state["embedding.weight"].double()[tokens]  # (B, T, d_model)
    x = x * math.sqrt(d) + state["pos_encoding.pe"].double()[:T]
    x0, weights = x, []
    for layer in torch_layers(init, state, norm_first):
        h = x0 if maps_on == "embedding" else x
        if maps:
            a = layer.norm1(h) if (norm_first or maps_on == "normed") and maps_on != "raw" else h
            _, w = layer.self_attn(a, a, a, need_weights=True, average_attn_weights=False)
            weights.append(w)  # (B, H, T, T)
        x = layer(x, **torch_masks(mask, T))
    if maps:
        return weights
    return F.layer_norm(x, (d,), state["norm.weight"].double(), state["norm.bias"].double())


def encoder_names(init: dict) -> dict[str, list[int]]:
    d = init["d_model"]
    names = {"embedding.weight": [init["vocab_size"], d]}
    for i in range(init["num_layers"]):
        names.update({f"layers.{i}.{k}": v for k, v in block_names(d, init["d_ff"]).items()})
    names.update({"norm.weight": [d], "norm.bias": [d]})
    return names


ENCODER_MISPLACEMENTS = [
    (
        {"all"},
        (),
        "in training mode no dropout is applied: pass `dropout` to PositionalEncoding and to "
        "every TransformerEncoderBlock (model.train() must change the output).",
        "no_dropout",
    ),
    (
        {"pos"},
        (),
        "the positional encoding applies no dropout: "
        "self.pos_encoding = PositionalEncoding(d_model, max_len, dropout).",
        "no_positional_dropout",
    ),
    (
        (),
        {"embedding"},
        "an extra dropout is applied to the scaled embedding: PositionalEncoding already "
        "applies dropout after adding the positions, so the embedding needs none of its own.",
        "extra_embedding_dropout",
    ),
]


MISTAKES = entries(CATALOGUE["06.TransformerEncoder"])


def encoder_ref64(init: dict, state: dict, tokens, mask=None, norm_first: bool = True):
    """The encoder in float64 (PyTorch's layers with the probe's weights). The catalogue's wrong
    programs are edits of it (exercises/06/catalogue.py)."""
    d, T, H = init["d_model"], tokens.shape[1], init["num_heads"]
    x = state["embedding.weight"].double()[tokens] * math.sqrt(d)
    table = state["pos_encoding.pe"].double()[:T]
    x = x + table
    layers = [substate(state, f"layers.{i}.") for i in range(init["num_layers"])]
    for layer in layers:
        x = block64(layer, x, H, norm_first=norm_first, mask=mask)
    return layer_norm64(x, state["norm.weight"], state["norm.bias"], 1e-5)


def encoder_variants(init: dict, st: dict, tokens, mask, norm_first: bool) -> list[tuple]:
    """The known wrong encoders that apply to one case: (variant, message, code), as in
    expect_close (the catalogue's programs)."""
    L = init["num_layers"]
    codes = ["embedding_not_scaled", "embedding_scaled_by_d_model", "embedding_divided",
             "positions_scaled", "no_positional_encoding", "no_final_norm"]  # fmt: skip
    codes += ["one_block_repeated"] if L > 1 else []
    codes += ["blocks_not_run"] + (["only_first_block", "only_last_block"] if L > 1 else [])
    codes += ["mask_ignored", "mask_inverted"] if mask is not None else []
    codes += ["post_ln_no_final_norm"] if norm_first else ["norm_first_ignored"]
    args = (init, st, tokens, mask, norm_first)
    return variants(MISTAKES, encoder_ref64, args, codes=codes)
