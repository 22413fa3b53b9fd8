"""Notebook 09: patchify and the patch embedding (the Vision Transformer: nb09_vit.py; its float64
reference: nb09_reference.py).

References: ``F.unfold`` for patches, ``F.conv2d`` for the patch embedding.
"""

from __future__ import annotations

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
    named,
    randn,
    register,
)
from .modules import expect_names, judge_module_info
from .nb09_reference import conv_state, embed64


def patches64(images: torch.Tensor, p: int, order: str = "chw", grid: str = "row") -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*p*p); ``order`` of the values inside a patch ("chw" right,
    "hwc" channels-last, "cwh" pixels column-major), ``grid`` the order of the patches."""
    B, C, H, W = images.shape
    x = images.double().reshape(B, C, H // p, p, W // p, p)  # (B, C, h, p, w, p)
    grid_dims = (2, 4) if grid == "row" else (4, 2)
    inner = {"chw": (1, 3, 5), "hwc": (3, 5, 1), "cwh": (1, 5, 3)}[order]
    return x.permute(0, *grid_dims, *inner).reshape(B, -1, C * p * p)


@register
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
        f32, f64 = torch.float32, torch.float64
        for name, shape, p, dtype in (
            ("(2, 3, 8, 8), patch_size = 4", (2, 3, 8, 8), 4, f32),
            ("(2, 3, 6, 9) (H != W), patch_size = 3", (2, 3, 6, 9), 3, f32),
            ("(3, 1, 8, 8), patch_size = 2", (3, 1, 8, 8), 2, f32),
            ("(1, 2, 4, 6), patch_size = 2, float64", (1, 2, 4, 6), 2, f64),
        ):
            yield Probe(name, args=(randn(*shape, dtype=dtype, generator=gen), p))

    def judge(self, probe, out):
        images, p = probe.args
        B, C, H, W = images.shape
        N, D = (H // p) * (W // p), C * p * p
        got = expect_tensor(out, "the patches")
        if tuple(got.shape) == (B, D, N) and D != N:
            raise Fail(
                f"the patches have shape {fmt_shape(got.shape)} = (B, C*p*p, N): transpose "
                f"to (B, N, C*p*p) = {(B, N, D)}, one row per patch.",
                "patches_transposed",
            )
        expect_like(got, (B, N, D), images.dtype, "the patches")
        ref = F.unfold(images.double(), p, stride=p).transpose(1, 2)  # (B, N, C*p*p)
        x = images.double()
        mistakes = named(
            PATCHIFY_MISTAKES,
            patches_transposed=lambda: ref.transpose(1, 2) if N == D else None,
            plain_reshape=lambda: x.reshape(B, N, D),
            channels_last=lambda: patches64(images, p, order="hwc"),
            column_major=lambda: patches64(images, p, grid="col"),
            column_major_channels_last=lambda: patches64(images, p, grid="col", order="hwc"),
            pixels_column_major=lambda: patches64(images, p, order="cwh"),
            unfold_not_permuted=lambda: x.unfold(2, p, p).unfold(3, p, p).reshape(B, N, D),
        )
        expect_close(got, ref, "the patches", mistakes=mistakes)


PATCHIFY_MISTAKES = {
    "patches_transposed": "the patches are transposed, (B, C*p*p, N): transpose to (B, N, C*p*p), "
    "one row per patch.",
    "plain_reshape": "the image was reshaped to (B, N, C*p*p) without a permute: a reshape keeps "
    "the memory order, so each 'patch' is a run of pixels along a row. Reshape to (B, C, H/p, p, "
    "W/p, p), permute to (B, H/p, W/p, C, p, p), then flatten.",
    "channels_last": "each patch is flattened channels-last (p, p, C): flatten it in (C, p, p) "
    "order, as Conv2d's weight is laid out (permute to (B, H/p, W/p, C, p, p)).",
    "column_major": "the patches are in column-major order (down the first column first): number "
    "them row by row, left to right, like reading text (H/p before W/p).",
    "column_major_channels_last": "the patches are in column-major order and flattened "
    "channels-last: use row-major patches, each flattened in (C, p, p) order.",
    "pixels_column_major": "the pixels inside each patch are flattened column by column: keep "
    "(C, p_row, p_col) order.",
    "unfold_not_permuted": "the result of Tensor.unfold was reshaped without a permute: "
    "images.unfold(2, p, p).unfold(3, p, p) is (B, C, H/p, W/p, p, p); permute it to (B, H/p, "
    "W/p, C, p, p) so that each row holds one patch in (C, p, p) order.",
}


# --------------------------------------------------------------------------- patch embedding


EMBED_MISTAKES = {
    "no_transpose": "Conv2d's output (B, d_model, N) was reshaped to (B, N, d_model) without a "
    "transpose: this scrambles patches and features. Use .flatten(2).transpose(1, 2).",
    "column_major": "the patches are in column-major order: flatten the (H/p, W/p) grid row by "
    "row, .flatten(2) on (B, d_model, H/p, W/p).",
    "no_bias": "the bias of proj is not applied.",
}


@register
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
        for img, p, C, d, B in ((8, 4, 1, 16, 2), (12, 3, 3, 10, 2), (8, 2, 2, 6, 1)):
            yield Probe(
                f"PatchEmbedding({img}, {p}, {C}, {d}), images {(B, C, img, img)}",
                runner="module",
                init=init(img, p, C, d),
                state=conv_state(gen, C, d, p),
                args=(randn(B, C, img, img, generator=gen),),
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
                "the grid and transpose to (B, N, d_model), e.g. .flatten(2).transpose(1, 2).",
                "no_flatten",
            )
        if tuple(got.shape) == (B, d, N) and d != N:
            raise Fail(
                f"the output has shape (B, d_model, N) = {fmt_shape(got.shape)}: transpose it to "
                f"(B, N, d_model) = {(B, N, d)}, one row per patch.",
                "no_transpose",
            )
        overlapping = (H - p + 1) * (W - p + 1)
        if got.dim() == 3 and got.shape[1] == overlapping != N:
            raise Fail(
                f"the output has {overlapping} patches instead of N = {N}: the convolution "
                "slides by 1 pixel, so the patches overlap. Use stride=patch_size, "
                "nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size).",
                "stride_1",
            )
        expect_like(got, (B, N, d), images.dtype)
        expect_finite(got)
        ref = embed64(probe.state, images, p)
        w, bias = probe.state["proj.weight"].double(), probe.state["proj.bias"].double()
        conv = F.conv2d(images.double(), w, bias, stride=p)  # (B, d, h, w)
        mistakes = named(
            EMBED_MISTAKES,
            no_transpose=lambda: conv.reshape(B, N, d),
            column_major=lambda: conv.transpose(2, 3).flatten(2).transpose(1, 2),
            no_bias=lambda: ref - bias,
        )
        expect_close(got, ref, mistakes=mistakes)

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
            raise Fail(
                f"proj is a {info['children'].get('proj')}: make it an nn.Conv2d. {hint}",
                "proj_not_conv2d",
            )
        n = (probe.init["img_size"] // p) ** 2
        if info["attributes"].get("num_patches") != n:
            got = info["attributes"].get("num_patches", "missing")
            raise Fail(
                f"self.num_patches is {got}, expected N = (img_size // patch_size) ** 2 = {n}: "
                "the ViT reads it to size its position embeddings.",
                "num_patches",
            )
