"""09.patchify: images as sequences of patches (its check)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    fmt_shape,
    named,
    randn,
    register,
)


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
