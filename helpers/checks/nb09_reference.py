"""Notebook 09: the ViT's float64 reference, assembled from PyTorch modules, with switches for the
known mistakes; its parameter names and random states.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .framework import randn
from .modules import (
    block_names,
    block_state,
    linear_state,
    torch_layer,
)
from .references import substate

# --------------------------------------------------------------------------- the ViT


def conv_state(gen, C: int, d: int, p: int, prefix: str = "proj.") -> dict:
    return {
        f"{prefix}weight": randn(d, C, p, p, generator=gen) / math.sqrt(C * p * p),
        f"{prefix}bias": 0.3 * randn(d, generator=gen),
    }


def embed64(state: dict, images: torch.Tensor, p: int, prefix: str = "proj.") -> torch.Tensor:
    y = F.conv2d(
        images.double(),
        state[f"{prefix}weight"].double(),
        state[f"{prefix}bias"].double(),
        stride=p,
    )
    return y.flatten(2).transpose(1, 2)  # (B, d, h, w) -> (B, N, d)


def vit_init(img=8, p=4, C=1, classes=10, d=16, H=2, L=2, d_ff=32, **kw) -> dict:
    return {
        "img_size": img,
        "patch_size": p,
        "in_channels": C,
        "num_classes": classes,
        "d_model": d,
        "num_heads": H,
        "num_layers": L,
        "d_ff": d_ff,
        **kw,
    }


def vit_names(init: dict) -> dict[str, list[int]]:
    d, C, p = init["d_model"], init["in_channels"], init["patch_size"]
    N = (init["img_size"] // p) ** 2
    names = {
        "patch_embed.proj.weight": [d, C, p, p],
        "patch_embed.proj.bias": [d],
        "cls_token": [1, 1, d],
        "pos_embed": [1, N + 1, d],
    }
    for i in range(init["num_layers"]):
        names.update({f"blocks.{i}.{k}": v for k, v in block_names(d, init["d_ff"]).items()})
    names.update(
        {
            "norm.weight": [d],
            "norm.bias": [d],
            "head.weight": [init["num_classes"], d],
            "head.bias": [init["num_classes"]],
        }
    )
    return names


def vit_state(gen, init: dict) -> dict:
    d, d_ff = init["d_model"], init["d_ff"]
    N = (init["img_size"] // init["patch_size"]) ** 2
    st = conv_state(gen, init["in_channels"], d, init["patch_size"], "patch_embed.proj.")
    st["cls_token"] = randn(1, 1, d, generator=gen)
    st["pos_embed"] = randn(1, N + 1, d, generator=gen)
    for i in range(init["num_layers"]):
        st.update(block_state(gen, d, d_ff, f"blocks.{i}."))
    st["norm.weight"] = 1.0 + 0.3 * randn(d, generator=gen)
    st["norm.bias"] = 0.2 * randn(d, generator=gen)
    st.update(linear_state(gen, d, init["num_classes"], "head."))
    return st


def vit64(
    init: dict,
    state: dict,
    images: torch.Tensor,
    *,
    cls: bool = True,
    pos: str = "all",
    final_norm: bool = True,
    pool: str = "cls",
    norm_first: bool = True,
    maps: bool = False,
    cls_end: bool = False,
):
    """The ViT in float64 from PyTorch modules; ``maps=True`` returns the per-layer attention
    weights (B, H, T, T) instead of the logits.

    pos: "all" (right), "none", "patches" (rows 1..N added to the patches before the CLS token
    is prepended), "patches_first" (rows 0..N-1 so). pool: "cls" (right), "mean" (all tokens),
    "mean_patches", "last", "first_patch" (x[:, 1]). cls_end: the CLS token appended after the
    patches.
    """
    st = {k: v.double() for k, v in state.items()}
    x = embed64(st, images, init["patch_size"], "patch_embed.proj.")  # (B, N, d)
    B = x.shape[0]
    if pos in ("patches", "patches_first"):  # rows 1..N, or (wrongly) rows 0..N-1
        x = x + (st["pos_embed"][:, 1:] if pos == "patches" else st["pos_embed"][:, :-1])
    if cls:
        tokens = [st["cls_token"].expand(B, -1, -1), x]
        x = torch.cat(tokens[::-1] if cls_end else tokens, dim=1)  # (B, N + 1, d)
        if pos == "all":
            x = x + st["pos_embed"]
    elif pos == "all":
        x = x + st["pos_embed"][:, 1:]
    weights = []
    layer_init = {
        "d_model": init["d_model"],
        "num_heads": init["num_heads"],
        "d_ff": init["d_ff"],
        "norm_first": norm_first,
    }
    with torch.no_grad():
        for i in range(init["num_layers"]):
            prefix = f"blocks.{i}."
            layer = torch_layer(layer_init, substate(st, prefix))
            if maps:
                h = layer.norm1(x) if norm_first else x
                _, w = layer.self_attn(h, h, h, need_weights=True, average_attn_weights=False)
                weights.append(w)  # (B, H, T, T)
            x = layer(x)
    if maps:
        return weights
    if final_norm:
        x = F.layer_norm(x, (x.shape[-1],), st["norm.weight"], st["norm.bias"], 1e-5)
    pooled = {
        "cls": lambda: x[:, 0],
        "mean": lambda: x.mean(1),
        "mean_patches": lambda: x[:, 1:].mean(1),
        "last": lambda: x[:, -1],
        "first_patch": lambda: x[:, 1],
    }[pool]()
    return F.linear(pooled, st["head.weight"], st["head.bias"])  # (B, num_classes)


VIT_MISPLACEMENTS = [
    (
        {"all"},
        (),
        "in training mode no dropout is applied: pass `dropout` to every "
        "TransformerEncoderBlock (model.train() must change the output).",
        "no_dropout",
    ),
    (
        (),
        {"before_cls"},
        "dropout is applied to the patch embeddings before the CLS token is prepended: apply "
        "it (if at all) to the whole sequence after adding pos_embed.",
        "dropout_before_cls",
    ),
    (
        (),
        {"head"},
        "an extra dropout is applied to the CLS token before the head: dropout belongs inside "
        "the blocks (and, optionally, on the embedded tokens).",
        "dropout_before_head",
    ),
]
