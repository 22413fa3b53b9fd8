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
    randn,
    register,
)
from ...mistakes import variants


def patches64(images: torch.Tensor, p: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*p*p) in float64, patches row by row, each in (C, p, p) order.
    The catalogue's wrong programs are edits of it (exercises/09/catalogue.py)."""
    B, C, H, W = images.shape
    x = images.double().reshape(B, C, H // p, p, W // p, p)  # (B, C, h, p, w, p)
    return x.permute(0, 2, 4, 1, 3, 5).reshape(B, -1, C * p * p)


@register
class PatchifyCheck(Exercise):
    id = "09.patchify"
    title = "images as sequences of patches"
    points = 2.0
    forbid = ("torch.nn.functional.unfold", "torch.nn.Unfold.forward")
    reference64 = staticmethod(patches64)

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
        codes = [c for c in self.mistakes if c != "patches_transposed" or N == D]
        mistakes = variants(self.mistakes, patches64, probe.args, codes=codes)
        expect_close(got, ref, "the patches", mistakes=mistakes)
