"""Notebook 09: the ViT's float64 reference, assembled from PyTorch modules (its known mistakes:
exercises/09/catalogue.py); its parameter names and random states.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...framework import randn
from ...references import substate
from ...weights import block_names, block_state, linear_state, torch_layer

# --------------------------------------------------------------------------- the ViT


def conv_state(gen, C: int, d: int, p: int, prefix: str = "proj.") -> dict:
    return {
        f"{prefix}weight": randn(d, C, p, p, generator=gen) / math.sqrt(C * p * p),
        f"{prefix}bias": 0.3 * randn(d, generator=gen),
    }


def embed64(state: dict, images: torch.Tensor, p: int, prefix: str = "proj.") -> torch.Tensor:
    """PatchEmbedding's forward in float64; the catalogue's wrong programs are edits of it."""
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


def vit64(init: dict, state: dict, images, *, maps=False, maps_on="input"):
    """The ViT in float64 from PyTorch modules; ``maps=True`` returns the per-layer attention
    weights (B, H, T, T) instead of the logits, taken on ``maps_on`` as in ``encoder64``. The
    catalogue's wrong ViTs are edits of it (exercises/09/catalogue.py)."""
    st = {k: v.double() for k, v in state.items()}
    x = embed64(st, images, init["patch_size"], "patch_embed.proj.")  # (B, N, d)
    cls = st["cls_token"].expand(x.shape[0], -1, -1)
    x = torch.cat([cls, x], dim=1)  # (B, N + 1, d)
    x = x + st["pos_embed"]
    layer_init = {k: init[k] for k in ("d_model", "num_heads", "d_ff")} | {"norm_first": True}
    x0, weights = x, []
    with torch.no_grad():
        for i in range(init["num_layers"]):
            layer = torch_layer(layer_init, substate(st, f"blocks.{i}."))
            if maps:
                h = x0 if maps_on == "embedding" else x
                h = layer.norm1(h) if maps_on != "raw" else h
                _, w = layer.self_attn(h, h, h, need_weights=True, average_attn_weights=False)
                weights.append(w)  # (B, H, T, T)
            x = layer(x)
    if maps:
        return weights
    x = F.layer_norm(x, (x.shape[-1],), st["norm.weight"], st["norm.bias"], 1e-5)
    return F.linear(x[:, 0], st["head.weight"], st["head.bias"])  # (B, num_classes)


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
