"""Notebook 09: patchify, the patch embedding, the Vision Transformer.

References: ``F.unfold`` for patches, ``F.conv2d`` for the patch embedding, and for the ViT a
float64 model assembled from PyTorch modules (``nn.TransformerEncoderLayer(norm_first=True)``
blocks loaded with the probe's weights, ``F.layer_norm``, ``F.linear``), with switches for the
known mistakes (no CLS token, no position embedding, no final norm, another pooling).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
)
from .modules import (
    block_names,
    block_state,
    expect_names,
    judge_module_info,
    linear_state,
    torch_layer,
)
from .references import substate
from .trained import TrainedModelCheck


def patches64(images: torch.Tensor, p: int, order: str = "chw", grid: str = "row") -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*p*p); ``order`` of the values inside a patch ("chw" right,
    "hwc" channels-last, "cwh" pixels column-major), ``grid`` the order of the patches."""
    B, C, H, W = images.shape
    x = images.double().reshape(B, C, H // p, p, W // p, p)  # (B, C, h, p, w, p)
    grid_dims = (2, 4) if grid == "row" else (4, 2)
    inner = {"chw": (1, 3, 5), "hwc": (3, 5, 1), "cwh": (1, 5, 3)}[order]
    return x.permute(0, *grid_dims, *inner).reshape(B, -1, C * p * p)


class PatchifyCheck(Exercise):
    id = "09.patchify"
    title = "images as sequences of patches"
    points = 2.0
    forbid = ("torch.nn.functional.unfold", "torch.nn.Unfold.forward")

    def probes(self, gen):
        yield Probe(
            "a (1, 1, 4, 4) image holding 0..15, patch_size = 2",
            args=(torch.arange(16.0).reshape(1, 1, 4, 4), 2),
        )
        yield Probe("(2, 3, 8, 8), patch_size = 4", args=(randn(2, 3, 8, 8, generator=gen), 4))
        yield Probe(
            "(2, 3, 6, 9) (H != W), patch_size = 3", args=(randn(2, 3, 6, 9, generator=gen), 3)
        )
        yield Probe("(3, 1, 8, 8), patch_size = 2", args=(randn(3, 1, 8, 8, generator=gen), 2))
        yield Probe(
            "(1, 2, 4, 6), patch_size = 2, float64",
            args=(randn(1, 2, 4, 6, dtype=torch.float64, generator=gen), 2),
        )

    def judge(self, probe, out):
        images, p = probe.args
        B, C, H, W = images.shape
        N, D = (H // p) * (W // p), C * p * p
        got = expect_tensor(out, "the patches")
        if tuple(got.shape) == (B, D, N) and D != N:
            raise Fail(
                f"the patches have shape {fmt_shape(got.shape)} = (B, C*p*p, N): transpose "
                f"to (B, N, C*p*p) = {(B, N, D)}, one row per patch."
            )
        expect_like(got, (B, N, D), images.dtype, "the patches")
        ref = F.unfold(images.double(), p, stride=p).transpose(1, 2)  # (B, N, C*p*p)
        expect_close(
            got,
            ref,
            "the patches",
            mistakes=[
                (
                    lambda: ref.transpose(1, 2) if N == D else None,
                    "the patches are transposed, (B, C*p*p, N): transpose to (B, N, C*p*p), one "
                    "row per patch.",
                ),
                (
                    lambda: images.double().reshape(B, N, D),
                    "the image was reshaped to (B, N, C*p*p) without a permute: a reshape keeps "
                    "the "
                    "memory order, so each 'patch' is a run of pixels along a row. Reshape to "
                    "(B, C, H/p, p, W/p, p), permute to (B, H/p, W/p, C, p, p), then flatten.",
                ),
                (
                    lambda: patches64(images, p, order="hwc"),
                    "each patch is flattened channels-last (p, p, C): flatten it in (C, p, p) "
                    "order, "
                    "as Conv2d's weight is laid out (permute to (B, H/p, W/p, C, p, p)).",
                ),
                (
                    lambda: patches64(images, p, grid="col"),
                    "the patches are in column-major order (down the first column first): number "
                    "them "
                    "row by row, left to right, like reading text (H/p before W/p).",
                ),
                (
                    lambda: patches64(images, p, grid="col", order="hwc"),
                    "the patches are in column-major order and flattened channels-last: use "
                    "row-major "
                    "patches, each flattened in (C, p, p) order.",
                ),
                (
                    lambda: patches64(images, p, order="cwh"),
                    "the pixels inside each patch are flattened column by column: keep (C, p_row, "
                    "p_col) order.",
                ),
            ],
        )


# --------------------------------------------------------------------------- patch embedding


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


class PatchEmbeddingCheck(Exercise):
    id = "09.PatchEmbedding"
    title = "the patch embedding"
    points = 2.0
    kind = "module"

    def probes(self, gen):
        def init(img, p, C, d):
            return {"img_size": img, "patch_size": p, "in_channels": C, "d_model": d}

        yield Probe(
            "module_info: PatchEmbedding(8, 4, 1, 16)", runner="module_info", init=init(8, 4, 1, 16)
        )
        yield Probe(
            "PatchEmbedding(8, 4, 1, 16), images (2, 1, 8, 8)",
            runner="module",
            init=init(8, 4, 1, 16),
            state=conv_state(gen, 1, 16, 4),
            args=(randn(2, 1, 8, 8, generator=gen),),
        )
        yield Probe(
            "PatchEmbedding(12, 3, 3, 10), images (2, 3, 12, 12)",
            runner="module",
            init=init(12, 3, 3, 10),
            state=conv_state(gen, 3, 10, 3),
            args=(randn(2, 3, 12, 12, generator=gen),),
        )
        yield Probe(
            "PatchEmbedding(8, 2, 2, 6), images (1, 2, 8, 8)",
            runner="module",
            init=init(8, 2, 2, 6),
            state=conv_state(gen, 2, 6, 2),
            args=(randn(1, 2, 8, 8, generator=gen),),
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "PatchEmbedding", self.judge_info)
        (images,) = probe.args
        p, d = probe.init["patch_size"], probe.init["d_model"]
        B, C, H, W = images.shape
        N = (H // p) * (W // p)
        got = expect_tensor(out)
        if tuple(got.shape) == (B, d, H // p, W // p):
            raise Fail(
                f"the output is Conv2d's (B, d_model, H/p, W/p) = {fmt_shape(got.shape)}: flatten "
                "the grid and transpose to (B, N, d_model), e.g. .flatten(2).transpose(1, 2)."
            )
        if tuple(got.shape) == (B, d, N) and d != N:
            raise Fail(
                f"the output has shape (B, d_model, N) = {fmt_shape(got.shape)}: transpose it to "
                f"(B, N, d_model) = {(B, N, d)}, one row per patch."
            )
        expect_like(got, (B, N, d), images.dtype)
        expect_finite(got)
        ref = embed64(probe.state, images, p)
        conv = F.conv2d(
            images.double(),
            probe.state["proj.weight"].double(),
            probe.state["proj.bias"].double(),
            stride=p,
        )  # (B, d, h, w)
        expect_close(
            got,
            ref,
            mistakes=[
                (
                    lambda: conv.reshape(B, N, d),
                    "Conv2d's output (B, d_model, N) was reshaped to (B, N, d_model) without a "
                    "transpose: "
                    "this scrambles patches and features. Use .flatten(2).transpose(1, 2).",
                ),
                (
                    lambda: conv.transpose(2, 3).flatten(2).transpose(1, 2),
                    "the patches are in column-major order: flatten the (H/p, W/p) grid row by "
                    "row, "
                    ".flatten(2) on (B, d_model, H/p, W/p).",
                ),
                (
                    lambda: ref - probe.state["proj.bias"].double(),
                    "the bias of proj is not applied.",
                ),
            ],
        )

    def judge_info(self, probe, info):
        C, p, d = probe.init["in_channels"], probe.init["patch_size"], probe.init["d_model"]
        hint = (
            f"Create self.proj = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, "
            f"stride=patch_size): weight ({d}, {C}, {p}, {p})."
        )
        expect_names(
            info,
            {"proj.weight": [d, C, p, p], "proj.bias": [d]},
            "PatchEmbedding",
            {"proj.weight": hint, "proj.bias": hint, "proj.weight.shape": hint},
        )
        if info["children"].get("proj") != "Conv2d":
            raise Fail(f"proj is a {info['children'].get('proj')}: make it an nn.Conv2d. {hint}")


# --------------------------------------------------------------------------- the ViT


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
):
    """The ViT in float64 from PyTorch modules; ``maps=True`` returns the per-layer attention
    weights (B, H, T, T) instead of the logits.

    pos: "all" (right), "none", "patches" (added to the patches before the CLS token is
    prepended). pool: "cls" (right), "mean" (all tokens), "mean_patches", "last".
    """
    st = {k: v.double() for k, v in state.items()}
    x = embed64(st, images, init["patch_size"], "patch_embed.proj.")  # (B, N, d)
    B = x.shape[0]
    if pos == "patches":
        x = x + st["pos_embed"][:, 1:]
    if cls:
        x = torch.cat([st["cls_token"].expand(B, -1, -1), x], dim=1)  # (B, N + 1, d)
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
    }[pool]()
    return F.linear(pooled, st["head.weight"], st["head.bias"])  # (B, num_classes)


class VisionTransformerCheck(Exercise):
    id = "09.VisionTransformer"
    title = "the Vision Transformer"
    points = 4.0
    kind = "module"

    def probes(self, gen):
        base = vit_init()
        yield Probe(
            "module_info: VisionTransformer(8, 4, 1, 10, d_model=16, 2 heads, 2 layers, d_ff=32)",
            runner="module_info",
            init=base,
        )
        yield Probe(
            "8x8 images, patch 4 (N = 4), 2 layers, images (3, 1, 8, 8)",
            runner="module",
            init=base,
            state=vit_state(gen, base),
            args=(randn(3, 1, 8, 8, generator=gen),),
        )
        rgb = vit_init(img=12, p=4, C=3, classes=5, d=12, H=3, L=1, d_ff=24)
        yield Probe(
            "12x12 RGB, patch 4 (N = 9), 3 heads, 1 layer, 5 classes, images (2, 3, 12, 12)",
            runner="module",
            init=rgb,
            state=vit_state(gen, rgb),
            args=(randn(2, 3, 12, 12, generator=gen),),
        )
        fine = vit_init(p=2, d=8, H=2, L=2, d_ff=16, dropout=0.1)
        yield Probe(
            "patch 2 (N = 16), dropout=0.1 in eval mode, images (2, 1, 8, 8)",
            runner="module",
            init=fine,
            state=vit_state(gen, fine),
            args=(randn(2, 1, 8, 8, generator=gen),),
        )
        deep = vit_init(L=3, d=8, d_ff=16, classes=3)
        yield Probe(
            "3 layers, 3 classes, images (2, 1, 8, 8)",
            runner="module",
            init=deep,
            state=vit_state(gen, deep),
            args=(randn(2, 1, 8, 8, generator=gen),),
        )
        yield Probe(
            "attention_maps, 2 layers, images (2, 1, 8, 8)",
            runner="module",
            init=base,
            state=vit_state(gen, base),
            args=(randn(2, 1, 8, 8, generator=gen),),
            info={"method": "attention_maps"},
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "VisionTransformer", self.judge_info)
        if isinstance(out, dict):
            raise Fail("VisionTransformer(...) should build a torch.nn.Module.")
        if probe.info.get("method") == "attention_maps":
            return self.judge_maps(probe, out)
        init, st = probe.init, probe.state
        (images,) = probe.args
        B = images.shape[0]
        got = expect_tensor(out, "the logits")
        if got.dim() == 3 and got.shape[0] == B and got.shape[-1] == init["num_classes"]:
            raise Fail(
                f"the logits have shape {fmt_shape(got.shape)}: one prediction per token. "
                "Classify from the CLS token alone, head(norm(x)[:, 0])."
            )
        expect_like(got, (B, init["num_classes"]), images.dtype, "the logits")
        expect_finite(got, "the logits")
        ref = vit64(init, st, images)

        def v(**kw):
            return lambda: vit64(init, st, images, **kw)

        no_cls = (
            "there is no CLS token in the sequence: prepend cls_token (expanded to (B, 1, "
            "d_model)) to the patch embeddings, add pos_embed, and classify from x[:, 0]."
        )
        expect_close(
            got,
            ref,
            "the logits",
            atol=1e-4 if images.dtype == torch.float32 else None,
            mistakes=[
                (
                    v(final_norm=False),
                    "the final LayerNorm is missing: apply self.norm to the "
                    "output of the last block before the head (pre-LN blocks "
                    "leave the residual stream unnormalized).",
                ),
                (
                    v(pos="none"),
                    "the position embedding is not added: x = cat([cls, patches]) + pos_embed.",
                ),
                (
                    v(pos="patches"),
                    "pos_embed is added before the CLS token is prepended, so the CLS token "
                    "gets no position embedding: prepend first, then add all N + 1 rows.",
                ),
                (v(cls=False, pool="mean"), no_cls),
                (v(cls=False, pool="cls"), no_cls),
                (v(cls=False, pool="mean", final_norm=False), no_cls),
                (
                    v(pool="mean"),
                    "the head reads the mean of all tokens: classify from the CLS token, x[:, 0].",
                ),
                (
                    v(pool="mean_patches"),
                    "the head reads the mean of the patch tokens: classify from the CLS "
                    "token, x[:, 0] (mean pooling is an open exercise).",
                ),
                (
                    v(pool="last"),
                    "the head reads the last token: the CLS token is the first one, x[:, 0].",
                ),
                (
                    v(norm_first=False),
                    "the blocks are post-LN: build them with norm_first=True (pre-LN, as in ViT).",
                ),
            ],
        )

    def judge_maps(self, probe, out):
        init, st = probe.init, probe.state
        (images,) = probe.args
        B, L, H = images.shape[0], init["num_layers"], init["num_heads"]
        T = (init["img_size"] // init["patch_size"]) ** 2 + 1
        if isinstance(out, tuple):
            out = list(out)
        if isinstance(out, torch.Tensor) and out.dim() == 5:
            out = list(out.unbind(0))
        if not isinstance(out, list) or len(out) != L:
            got = f"a list of {len(out)}" if isinstance(out, list) else type(out).__name__
            raise Fail(
                f"attention_maps should return a list with one (B, H, T, T) tensor per layer "
                f"({L} here), got {got}."
            )
        refs = vit64(init, st, images, maps=True)
        for i, (w, ref) in enumerate(zip(out, refs)):
            w = expect_tensor(w, f"the map of layer {i}")
            if tuple(w.shape) == (B, T, T):
                raise Fail(
                    f"the map of layer {i} has shape {fmt_shape(w.shape)}: keep the heads, "
                    f"(B, H, T, T) = {(B, H, T, T)} (do not average them)."
                )
            expect_like(w, (B, H, T, T), images.dtype, f"the map of layer {i}")
            expect_close(w, ref, f"the map of layer {i}", atol=1e-4)

    def judge_info(self, probe, info):
        init = probe.init
        N = (init["img_size"] // init["patch_size"]) ** 2
        d = init["d_model"]
        blocks_hint = (
            "Use self.blocks = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, "
            "d_ff, dropout) for _ in range(num_layers)]) from helpers.blocks.layers."
        )
        hints = {
            "patch_embed.proj.weight": "Use self.patch_embed = PatchEmbedding(img_size, "
            "patch_size, "
            "in_channels, d_model) from above.",
            "cls_token": "Create self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model)).",
            "pos_embed": f"Create self.pos_embed = nn.Parameter(...) of shape (1, N + 1, d_model) "
            "= "
            f"(1, {N + 1}, {d}): N patches plus the CLS token.",
            "pos_embed.shape": f"It needs N + 1 = {N + 1} rows: one per patch and one for the CLS "
            "token.",
            "cls_token.shape": f"The CLS token is one learned vector, shape (1, 1, d_model) = (1, "
            f"1, {d}).",
            "blocks.0.self_attn.q_proj.weight": blocks_hint,
            "norm.weight": "Add the final self.norm = LayerNorm(d_model) (or nn.LayerNorm).",
            "head.weight": "Create self.head = nn.Linear(d_model, num_classes).",
        }
        expect_names(info, vit_names(init), "VisionTransformer", hints)


# --------------------------------------------------------------------------- the trained ViT


class TrainedViTCheck(TrainedModelCheck):
    """The ViT trained in the notebook (the variable ``vit``), judged on the test split of
    ``helpers.data.digits()`` (360 images): accuracy >= 0.97, the notebook's own target.

    The digits test split is public (the notebook prints its accuracy on it, and anyone can
    rebuild it), so this grade says the trained model does what the notebook shows; it is not a
    secret hold-out. The grader's seed only shuffles the order of the images.
    """

    id = "09.trained_vit"
    title = "the trained ViT reaches test accuracy >= 0.97 on the digits"
    points = 2.0
    grade_target = "vit"
    threshold = 0.97

    def held_out(self, gen):
        from helpers.data import digits  # judging side only (not in the grader's kernel)

        data = digits()
        order = torch.randperm(len(data["y_test"]), generator=gen)
        x, y = data["x_test"][order], data["y_test"][order]
        return f"the {len(y)} test images of helpers.data.digits()", x, y

    def accuracy_label(self, targets):
        return f"the accuracy on the {len(targets)} test images"
