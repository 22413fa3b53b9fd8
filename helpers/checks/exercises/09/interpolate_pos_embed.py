"""Notebook 09, part 3: a ViT's learned position embedding resized to another patch grid (as timm's
``resample_abs_pos_embed`` and DeiT do when a model is fine-tuned at another resolution).

The reference is ``F.interpolate(mode="bicubic", align_corners=False)`` in float64 on the grid
rows, the CLS row kept; the known wrong programs are edits of it (exercises/09/catalogue.py)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    describe_difference,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
    tolerances,
)
from ...mistakes import variants


def resize64(pos: torch.Tensor, old: tuple[int, int], new: tuple[int, int]) -> torch.Tensor:
    """(1, 1 + h*w, d) -> (1, 1 + new_h*new_w, d) in float64. The catalogue's wrong programs are
    edits of it (exercises/09/catalogue.py)."""
    pos = pos.double()
    (oh, ow), (nh, nw) = old, new
    d = pos.shape[-1]
    head, rows = pos[:, :1], pos[:, 1:]
    grid = rows.reshape(1, oh, ow, d).permute(0, 3, 1, 2)  # (1, d, h, w)
    out = F.interpolate(grid, size=(nh, nw), mode="bicubic", align_corners=False)
    out = out.permute(0, 2, 3, 1).reshape(1, nh * nw, d)
    return torch.cat([head, out], dim=1)


@register
class InterpolatePosEmbedCheck(Exercise):
    id = "09.interpolate_pos_embed"
    title = "a position embedding resized to another patch grid"
    points = 3.0
    reference64 = staticmethod(resize64)

    def probes(self, gen):
        f32, f64 = torch.float32, torch.float64
        # readable case: row r of the 2 x 2 grid holds (r, 10 r, ...): CLS row 0 holds -1
        small = torch.arange(5.0)[None, :, None] * torch.tensor([1.0, 10.0, -2.0])
        small[:, 0] = -1.0
        yield Probe(
            "pos_embed (1, 1 + 2*2, 3), grid (2, 2) -> (4, 4), CLS row -1, row r holds "
            "(r, 10r, -2r)",
            args=(small, (2, 2), (4, 4)),
        )
        for name, old, new, d, dtype in (
            ("grid (4, 4) -> (6, 6), d = 8", (4, 4), (6, 6), 8, f32),
            ("grid (2, 3) -> (4, 5) (h != w), d = 5", (2, 3), (4, 5), 5, f32),
            ("grid (5, 4) -> (3, 2) (smaller), d = 4", (5, 4), (3, 2), 4, f32),
            ("grid (3, 3) -> (3, 3) (the same grid: unchanged), d = 6", (3, 3), (3, 3), 6, f32),
            ("grid (3, 2) -> (5, 7), d = 4, float64", (3, 2), (5, 7), 4, f64),
        ):
            pos = randn(1, 1 + old[0] * old[1], d, dtype=dtype, generator=gen)
            yield Probe(f"pos_embed (1, 1 + {old[0]}*{old[1]}, {d}), {name}", args=(pos, old, new))

    def judge(self, probe, out):
        pos, old, new = probe.args
        d = pos.shape[-1]
        n_new = new[0] * new[1]
        got = expect_tensor(out, "the resized embedding")
        if got.dim() == 4:
            raise Fail(
                f"the output has shape {fmt_shape(got.shape)}, a (1, d, h, w) grid: turn it back "
                f"into rows, permute(0, 2, 3, 1).reshape(1, new_h * new_w, d), and put the CLS "
                f"row in front: (1, {1 + n_new}, {d}).",
                "not_rows",
            )
        if tuple(got.shape) == (1, n_new, d):
            raise Fail(
                f"the output has {n_new} rows, new_h * new_w: the CLS row is missing. Keep "
                f"pos_embed[:, :1] as it is and put it in front: (1, {1 + n_new}, {d}).",
                "cls_dropped",
            )
        if got.dim() == 3 and got.shape[1] == pos.shape[1] != 1 + n_new:
            raise self.fail("not_resized", got=got.shape[1], want=1 + n_new)
        expect_like(got, (1, 1 + n_new, d), pos.dtype, "the resized embedding")
        expect_finite(got, "the resized embedding")
        ref = resize64(pos, old, new)  # on the same grid: pos_embed itself, exactly

        def explain(got):
            if close(got[:, 1:], ref[:, 1:].to(got.dtype), *tolerances(got.dtype)):
                return Fail(
                    "the grid rows are right but the CLS row (row 0) changed: keep "
                    "pos_embed[:, :1] as it is, torch.cat([pos_embed[:, :1], rows], dim=1).",
                    "cls_changed",
                )
            if close(got[:, :1], ref[:, :1].to(got.dtype), *tolerances(got.dtype)):
                return Fail(
                    "the CLS row is right, the grid rows are not: "
                    + describe_difference(got, ref, "the resized embedding"),
                    None,
                )
            return None

        mistakes = variants(self.mistakes, resize64, probe.args)
        expect_close(got, ref, "the resized embedding", mistakes=mistakes, explain=explain)
