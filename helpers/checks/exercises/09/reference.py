"""Notebook 09: the ViT's float64 reference, assembled from PyTorch modules, with switches for the
known mistakes; its parameter names and random states.
"""

from __future__ import annotations

import itertools
import math

import torch
import torch.nn.functional as F

from ...framework import named, randn
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


def vit64(
    init: dict, state: dict, images, *, cls=True, pos="all", final_norm=True, pool="cls",
    norm_first=True, maps=False, maps_on="input", cls_end=False, layers=None,
):  # fmt: skip
    """The ViT in float64 from PyTorch modules; ``maps=True`` returns the per-layer attention
    weights (B, H, T, T) instead of the logits, taken on ``maps_on`` as in ``encoder64``.

    pos: "all" (right), "minus" (subtracted), "none", "patches" (rows 1..N added to the patches
    before the CLS token is prepended), "patches_first" (rows 0..N-1 so). pool: "cls" (right),
    "mean" (all tokens), "mean_patches", "last", "first_patch" (x[:, 1]). cls_end: the CLS
    token appended after the patches. layers: how many blocks run (default all).
    """
    st = {k: v.double() for k, v in state.items()}
    x = embed64(st, images, init["patch_size"], "patch_embed.proj.")  # (B, N, d)
    if pos in ("patches", "patches_first"):  # rows 1..N, or (wrongly) rows 0..N-1
        x = x + (st["pos_embed"][:, 1:] if pos == "patches" else st["pos_embed"][:, :-1])
    if cls:
        tokens = [st["cls_token"].expand(x.shape[0], -1, -1), x]
        x = torch.cat(tokens[::-1] if cls_end else tokens, dim=1)  # (B, N + 1, d)
    if pos in ("all", "minus"):
        x = x + (1 if pos == "all" else -1) * st["pos_embed"][:, (0 if cls else 1) :]
    layer_init = {k: init[k] for k in ("d_model", "num_heads", "d_ff")}
    layer_init["norm_first"] = norm_first
    x0, weights = x, []
    with torch.no_grad():
        for i in range(init["num_layers"] if layers is None else layers):
            layer = torch_layer(
                {**layer_init, "norm_first": norm_first}, substate(st, f"blocks.{i}.")
            )
            if maps:
                h = x0 if maps_on == "embedding" else x
                h = layer.norm1(h) if norm_first and maps_on != "raw" else h
                _, w = layer.self_attn(h, h, h, need_weights=True, average_attn_weights=False)
                weights.append(w)  # (B, H, T, T)
            x = layer(x)
    if maps:
        return weights
    if final_norm:
        x = F.layer_norm(x, (x.shape[-1],), st["norm.weight"], st["norm.bias"], 1e-5)
    pools = {
        "cls": 0,
        "last": -1,
        "first_patch": 1,
        "mean": slice(None),
        "mean_patches": slice(1, None),
    }
    pooled = x[:, pools[pool]]
    pooled = pooled.mean(1) if pool.startswith("mean") else pooled
    return F.linear(pooled, st["head.weight"], st["head.bias"])  # (B, num_classes)


VIT_MISTAKES = {
    "no_final_norm": "the final LayerNorm is missing: apply self.norm to the output of the last "
    "block before the head (pre-LN blocks leave the residual stream unnormalized).",
    "no_pos_embed": "the position embedding is not added: x = cat([cls, patches]) + pos_embed.",
    "pos_embed_subtracted": "pos_embed is subtracted: add it, x = cat([cls, patches]) + pos_embed.",
    "pos_embed_skips_cls": "pos_embed is added before the CLS token is prepended, so the CLS "
    "token gets no position embedding: prepend first, then add all N + 1 rows.",
    "pos_embed_before_cls": "pos_embed is added to the patches before the CLS token is prepended "
    "(its first N rows): prepend the CLS token first, then add all N + 1 rows.",
    "first_patch": "the head reads the first patch, x[:, 1]: the CLS token is token 0, x[:, 0].",
    "no_cls": "there is no CLS token in the sequence: prepend cls_token (expanded to (B, 1, "
    "d_model)) to the patch embeddings, add pos_embed, and classify from x[:, 0].",
    "cls_at_end": "the CLS token is appended after the patches: prepend it, torch.cat([cls, x], "
    "dim=1), so that it is token 0 and gets pos_embed[:, 0], as attention_maps and the head "
    "expect.",
    "blocks_not_run": "the blocks do not run: feed the tokens through each of them, for block "
    "in self.blocks: x = block(x).",
    "mean_pooling": "the head reads the mean of all tokens: classify from the CLS token, x[:, 0].",
    "mean_pooling_patches": "the head reads the mean of the patch tokens: classify from the CLS "
    "token, x[:, 0] (mean pooling is an open exercise).",
    "last_token": "the head reads the last token: the CLS token is the first one, x[:, 0].",
    "post_ln_blocks": "the blocks are post-LN: build them with norm_first=True (pre-LN, as in "
    "ViT).",
}


def vit_mistakes(v) -> list[tuple]:
    """(variant, message, code) of the known mistakes; ``v(**switches)`` makes a variant."""
    no_cls = [
        v(cls=False, pool=pool, pos=pos, final_norm=norm)
        for pool, pos, norm in itertools.product(("mean", "cls"), ("all", "none"), (True, False))
    ]
    return named(
        VIT_MISTAKES,
        no_final_norm=v(final_norm=False),
        no_pos_embed=v(pos="none"),
        pos_embed_subtracted=v(pos="minus"),
        pos_embed_skips_cls=v(pos="patches"),
        pos_embed_before_cls=v(pos="patches_first"),
        first_patch=v(pool="first_patch"),
        no_cls=no_cls,
        cls_at_end=[v(cls_end=True, pool="last"), v(cls_end=True)],
        blocks_not_run=v(layers=0),
        mean_pooling=v(pool="mean"),
        mean_pooling_patches=v(pool="mean_patches"),
        last_token=v(pool="last"),
        post_ln_blocks=v(norm_first=False),
    )


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
