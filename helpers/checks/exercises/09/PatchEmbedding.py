"""09.PatchEmbedding: the patch embedding (its check)."""

from __future__ import annotations

from torch import nn

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import variants
from ...modules import expect_names, judge_module_info
from .reference import conv_state, embed64


def embed_as_learner(embed):
    """The module a learner writes of embed64 (or of a wrong program made of it)."""

    class PatchEmbedding(nn.Module):
        def __init__(self, img_size, patch_size, in_channels, d_model):
            super().__init__()
            self.num_patches, self.patch_size = (img_size // patch_size) ** 2, patch_size
            self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

        def forward(self, images):
            state = {k: v.cpu() for k, v in self.proj.named_parameters()}
            return embed(state, images.cpu(), self.patch_size, "").to(images)

    return PatchEmbedding


@register
class PatchEmbeddingCheck(Exercise):
    id = "09.PatchEmbedding"
    title = "the patch embedding"
    points = 2.0
    kind = "module"
    reference64 = staticmethod(embed64)
    learner = staticmethod(embed_as_learner)

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
        args = (probe.state, images, p)
        ref, mistakes = embed64(*args), variants(self.mistakes, embed64, args)
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
