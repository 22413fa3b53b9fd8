"""The contract's weights: parameter names and shapes, random states under those names, and
PyTorch's layers loaded with them (the contract's names -> PyTorch's)."""

from __future__ import annotations

import math

import torch
from torch import nn

# the projections of a multi-head attention, named as in nn.MultiheadAttention
PROJECTIONS = ("q_proj", "k_proj", "v_proj", "out_proj")


def _randn(gen, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=torch.float64).float()


def linear_state(gen, d_in: int, d_out: int, prefix: str) -> dict:
    return {
        f"{prefix}weight": _randn(gen, d_out, d_in) / math.sqrt(d_in),
        f"{prefix}bias": 0.3 * _randn(gen, d_out),
    }


# the sublayers of an encoder block; a decoder block adds cross-attention and a third norm
ENCODER_PARTS = {"attns": ("self_attn",), "norms": ("norm1", "norm2")}
DECODER_PARTS = {"attns": ("self_attn", "cross_attn"), "norms": ("norm1", "norm2", "norm3")}
# nn.TransformerDecoderLayer's name for cross-attention
TORCH_ATTN_NAMES = {"self_attn": "self_attn", "cross_attn": "multihead_attn"}


def block_state(
    gen, d: int, d_ff: int, prefix: str = "", norm_scale=(0.3, 0.2), parts=ENCODER_PARTS
) -> dict:
    """Random weights of one block under the contract's names (norms away from 1, 0)."""
    st = {}
    for attn in parts["attns"]:
        for proj in PROJECTIONS:
            st.update(linear_state(gen, d, d, f"{prefix}{attn}.{proj}."))
    st.update(linear_state(gen, d, d_ff, f"{prefix}ffn.linear1."))
    st.update(linear_state(gen, d_ff, d, f"{prefix}ffn.linear2."))
    for norm in parts["norms"]:
        st[f"{prefix}{norm}.weight"] = 1.0 + norm_scale[0] * _randn(gen, d)
        st[f"{prefix}{norm}.bias"] = norm_scale[1] * _randn(gen, d)
    return st


def block_names(d: int, d_ff: int, parts=ENCODER_PARTS) -> dict[str, list[int]]:
    """The contract's parameter names and shapes of one block, in the order they are checked."""
    names = {}
    for attn in parts["attns"]:
        for proj in PROJECTIONS:
            names[f"{attn}.{proj}.weight"] = [d, d]
            names[f"{attn}.{proj}.bias"] = [d]
    names["ffn.linear1.weight"], names["ffn.linear1.bias"] = [d_ff, d], [d_ff]
    names["ffn.linear2.weight"], names["ffn.linear2.bias"] = [d, d_ff], [d]
    for norm in parts["norms"]:
        names[f"{norm}.weight"] = [d]
        names[f"{norm}.bias"] = [d]
    return names


def to_torch_names(state: dict, parts=ENCODER_PARTS) -> dict:
    """The contract's state dict -> nn.TransformerEncoderLayer's (or, with DECODER_PARTS,
    nn.TransformerDecoderLayer's) names: q/k/v stacked into in_proj, ffn. dropped."""
    out = {}
    for ours in parts["attns"]:
        theirs = TORCH_ATTN_NAMES[ours]
        for kind in ("weight", "bias"):
            stacked = [state[f"{ours}.{p}.{kind}"] for p in PROJECTIONS[:3]]
            out[f"{theirs}.in_proj_{kind}"] = torch.cat(stacked)
            out[f"{theirs}.out_proj.{kind}"] = state[f"{ours}.out_proj.{kind}"]
    for key, value in state.items():
        if key.startswith("ffn."):
            out[key[len("ffn.") :]] = value
        elif key.startswith("norm"):
            out[key] = value
    return out


def torch_layer(init: dict, state: dict) -> nn.TransformerEncoderLayer:
    """PyTorch's layer in float64 with the probe's weights. Training mode with dropout 0.0 keeps
    it off the fused fast path (the same numbers, but one code path on every machine)."""
    layer = nn.TransformerEncoderLayer(
        init["d_model"],
        init["num_heads"],
        init["d_ff"],
        dropout=0.0,
        activation=init.get("activation", "relu"),
        batch_first=True,
        norm_first=init.get("norm_first", True),
        dtype=torch.float64,
    )
    layer.load_state_dict({k: v.double() for k, v in to_torch_names(state).items()})
    return layer.train()


def torch_masks(mask: torch.Tensor | None, T: int) -> dict:
    """True = may attend (this series) -> PyTorch's True = blocked, as src_mask or key padding."""
    if mask is None:
        return {}
    if mask.dim() == 2:
        return {"src_mask": ~mask}
    return {"src_key_padding_mask": ~mask.reshape(mask.shape[0], T)}


def random_state(gen, d_model: int, bias: bool = True) -> dict:
    """Weights for q_proj, k_proj, v_proj, out_proj (a little larger than nn.Linear's init,
    so that the attention is not nearly uniform and the mistakes show)."""
    state = {}
    for name in PROJECTIONS:
        state[f"{name}.weight"] = _randn(gen, d_model, d_model) * (1.5 / math.sqrt(d_model))
        if bias:
            state[f"{name}.bias"] = _randn(gen, d_model) * 0.1
    return state
