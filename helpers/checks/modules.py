"""Module checks shared by several notebooks: the module-info verdict, parameter names and
shapes under the contract's names, random states, and PyTorch's reference layers loaded with
them (the contract's names -> PyTorch's)."""

from __future__ import annotations

import math

import torch
from torch import nn

from .framework import Fail, randn
from .references import PROJECTIONS


def judge_module_info(probe, out, name: str, judge) -> None:
    """Shared by module exercises: ``out`` is ``module_info``'s dict when the class built a module."""
    if not isinstance(out, dict) or set(out) != {"parameters", "buffers", "children"}:
        raise Fail(f"{name}(...) should build a torch.nn.Module: subclass nn.Module and call "
                   "super().__init__() first in __init__.")
    judge(probe, out)


def expect_names(info: dict, expected: dict[str, list[int]], name: str,
                 hints: dict[str, str] | None = None) -> None:
    """Parameters named exactly as the contract says, with the expected shapes."""
    hints = hints or {}
    params, buffers = info["parameters"], info["buffers"]
    for key, shape in expected.items():
        if key not in params:
            if key in buffers:
                raise Fail(f"{key} is a buffer: make it an nn.Parameter so that it is trained.")
            found = ", ".join(sorted(params)) or "none"
            raise Fail(f"{name} has no parameter `{key}` (found: {found}). "
                       + hints.get(key, "The names are part of the contract: weights are copied "
                                        "from PyTorch's module by name."))
        if list(params[key]) != list(shape):
            raise Fail(f"{key} has shape {tuple(params[key])}, expected {tuple(shape)}."
                       + (" " + hints[key + ".shape"] if key + ".shape" in hints else ""))
    extra = sorted(set(params) - set(expected))
    if extra:
        raise Fail(f"{name} has parameters the contract does not have: {', '.join(extra)}.")


def linear_state(gen, d_in: int, d_out: int, prefix: str) -> dict:
    return {f"{prefix}weight": randn(d_out, d_in, generator=gen) / math.sqrt(d_in),
            f"{prefix}bias": 0.3 * randn(d_out, generator=gen)}


def block_state(gen, d: int, d_ff: int, prefix: str = "", norm_scale=(0.3, 0.2)) -> dict:
    """Random weights of one encoder block under the contract's names (norms away from 1, 0)."""
    st = {}
    for proj in PROJECTIONS:
        st.update(linear_state(gen, d, d, f"{prefix}self_attn.{proj}."))
    st.update(linear_state(gen, d, d_ff, f"{prefix}ffn.linear1."))
    st.update(linear_state(gen, d_ff, d, f"{prefix}ffn.linear2."))
    for norm in ("norm1", "norm2"):
        st[f"{prefix}{norm}.weight"] = 1.0 + norm_scale[0] * randn(d, generator=gen)
        st[f"{prefix}{norm}.bias"] = norm_scale[1] * randn(d, generator=gen)
    return st


def block_names(d: int, d_ff: int) -> dict[str, list[int]]:
    names = {}
    for proj in PROJECTIONS:
        names[f"self_attn.{proj}.weight"] = [d, d]
        names[f"self_attn.{proj}.bias"] = [d]
    names.update({"ffn.linear1.weight": [d_ff, d], "ffn.linear1.bias": [d_ff],
                  "ffn.linear2.weight": [d, d_ff], "ffn.linear2.bias": [d]})
    for norm in ("norm1", "norm2"):
        names[f"{norm}.weight"] = [d]
        names[f"{norm}.bias"] = [d]
    return names


def to_torch_names(state: dict) -> dict:
    """The contract's state dict -> nn.TransformerEncoderLayer's names (q/k/v stacked)."""
    out = {
        "self_attn.in_proj_weight": torch.cat([state[f"self_attn.{p}.weight"] for p in PROJECTIONS[:3]]),
        "self_attn.in_proj_bias": torch.cat([state[f"self_attn.{p}.bias"] for p in PROJECTIONS[:3]]),
        "self_attn.out_proj.weight": state["self_attn.out_proj.weight"],
        "self_attn.out_proj.bias": state["self_attn.out_proj.bias"],
    }
    for key, value in state.items():
        if key.startswith("ffn."):
            out[key[len("ffn."):]] = value
        elif key.startswith("norm"):
            out[key] = value
    return out


def torch_layer(init: dict, state: dict) -> nn.TransformerEncoderLayer:
    """PyTorch's layer in float64 with the probe's weights. Training mode with dropout 0.0 keeps
    it off the fused fast path (the same numbers, but one code path on every machine)."""
    layer = nn.TransformerEncoderLayer(
        init["d_model"], init["num_heads"], init["d_ff"], dropout=0.0,
        activation=init.get("activation", "relu"), batch_first=True,
        norm_first=init.get("norm_first", True), dtype=torch.float64)
    layer.load_state_dict({k: v.double() for k, v in to_torch_names(state).items()})
    return layer.train()


def torch_masks(mask: torch.Tensor | None, T: int) -> dict:
    """True = may attend (this series) -> PyTorch's True = blocked, as src_mask or key padding."""
    if mask is None:
        return {}
    if mask.dim() == 2:
        return {"src_mask": ~mask}
    return {"src_key_padding_mask": ~mask.reshape(mask.shape[0], T)}
