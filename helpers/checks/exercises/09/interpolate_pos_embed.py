"""Notebook 09, part 3: a ViT's learned position embedding resized to another patch grid (as timm's
``resample_abs_pos_embed`` and DeiT do when a model is fine-tuned at another resolution).

The reference is ``F.interpolate(mode="bicubic", align_corners=False)`` in float64 on the grid
rows, the CLS row kept; the known wrong variants are the same steps with one switch flipped."""

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
    named,
    randn,
    register,
    tolerances,
)


def resize64(
    pos: torch.Tensor,
    old: tuple[int, int],
    new: tuple[int, int],
    *,
    mode: str = "bicubic",
    align_corners: bool | None = False,
    antialias: bool = False,
    grid_in: str = "right",
    grid_out: str = "right",
    size_swapped: bool = False,
    cls: str = "first",
) -> torch.Tensor:
    """(1, 1 + h*w, d) -> (1, 1 + new_h*new_w, d) in float64, with switches for the mistakes.

    grid_in: "right" (rows -> (1, h, w, d) -> permute to (1, d, h, w)), "no_permute" (rows
    reshaped straight to (1, d, h, w)), "transposed" (permuted to (1, d, w, h)), "wh" (rows read
    as a (w, h) grid). grid_out: "right" (permute back, row-major), "no_permute", "transposed"
    (column-major). cls: "first" (right), "in_grid" (the grid taken from rows 0..N-1),
    "last" (the CLS row appended after the grid).
    """
    pos = pos.double()
    (oh, ow), (nh, nw) = old, new
    d = pos.shape[-1]
    head = pos[:, :1]
    rows = pos[:, : oh * ow] if cls == "in_grid" else pos[:, 1:]
    if grid_in == "no_permute":
        grid = rows.reshape(1, d, oh, ow)
    elif grid_in == "transposed":
        grid = rows.reshape(1, oh, ow, d).permute(0, 3, 2, 1)
    elif grid_in == "wh":
        grid = rows.reshape(1, ow, oh, d).permute(0, 3, 1, 2)
    else:
        grid = rows.reshape(1, oh, ow, d).permute(0, 3, 1, 2)
    size = (nw, nh) if size_swapped else (nh, nw)
    kw = {} if mode in ("nearest", "area") else {"align_corners": align_corners}
    if antialias:
        kw["antialias"] = True
    out = F.interpolate(grid, size=size, mode=mode, **kw)  # (1, d, *size)
    if grid_out == "no_permute":
        out = out.reshape(1, nh * nw, d)
    elif grid_out == "transposed":
        out = out.permute(0, 3, 2, 1).reshape(1, nh * nw, d)
    else:
        out = out.permute(0, 2, 3, 1).reshape(1, nh * nw, d)
    return torch.cat([out, head] if cls == "last" else [head, out], dim=1)


def sequence_1d64(pos: torch.Tensor, new: tuple[int, int], keep_cls: bool) -> torch.Tensor:
    """The rows interpolated as a 1-D sequence (linear), with or without the CLS row."""
    pos = pos.double()
    n = new[0] * new[1]
    if not keep_cls:
        return F.interpolate(pos.transpose(1, 2), size=1 + n, mode="linear").transpose(1, 2)
    rows = F.interpolate(pos[:, 1:].transpose(1, 2), size=n, mode="linear").transpose(1, 2)
    return torch.cat([pos[:, :1], rows], dim=1)


HOW = (
    "Keep pos_embed[:, :1], reshape the other rows to (1, h, w, d), permute(0, 3, 1, 2), "
    "F.interpolate(..., size=(new_h, new_w), mode='bicubic', align_corners=False), then "
    "permute(0, 2, 3, 1).reshape(1, new_h * new_w, d) and put the CLS row back in front."
)


POS_MISTAKES = {
    "no_permute": "features of different patches are mixed, as when the rows are reshaped "
    "straight to (1, d, h, w) (or the result straight back to rows) without a permute, or "
    "permuted in another order: a reshape keeps the memory order. Reshape to (1, h, w, d) and "
    "permute(0, 3, 1, 2); on the way back permute(0, 2, 3, 1) before the reshape.",
    "grid_transposed": "rows and columns of the grid are swapped: the rows are numbered row by "
    "row, so row 1 + i*w + j is grid cell (i, j) of an (h, w) = (rows, columns) grid. Check "
    "each step that orders them: reshape to (1, h, w, d) (not (1, w, h, d)) and "
    "permute(0, 3, 1, 2), interpolate to size=(new_h, new_w) (not (new_w, new_h)), and "
    "permute(0, 2, 3, 1) back to the same row-major order.",
    "cls_in_grid": "the grid was taken from the first h*w rows, pos_embed[:, :h*w], so the CLS "
    "row was interpolated as the top-left patch and the last patch was dropped: the grid is "
    "pos_embed[:, 1:].",
    "cls_last": "the CLS row was put after the grid: it stays first, torch.cat([cls, grid], "
    "dim=1).",
    "sequence_1d": "the rows were interpolated as a 1-D sequence: position embeddings of "
    "patches live on a 2-D grid, and neighbours in the sequence are not neighbours in the "
    "image at a row's end. " + HOW,
    "bilinear": "this is bilinear interpolation: the contract asks for mode='bicubic' "
    "(align_corners=False).",
    "align_corners": "align_corners=True: the contract asks for align_corners=False (DeiT's "
    "and timm's choice: the grid cells' centres, not their corners, are resampled).",
    "nearest": "this is nearest-neighbour resizing (mode='nearest'): use mode='bicubic', "
    "align_corners=False.",
    "antialias": "antialias=True: leave it at its default, False (with antialias, PyTorch's "
    "bicubic uses another kernel, PIL's, even when it upsamples).",
    "not_resized": "the grid rows were not resized: the output has {got} rows where "
    "1 + new_h*new_w = {want} were expected. " + HOW,
}


@register
class InterpolatePosEmbedCheck(Exercise):
    id = "09.interpolate_pos_embed"
    title = "a position embedding resized to another patch grid"
    points = 3.0

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
            msg = POS_MISTAKES["not_resized"].format(got=got.shape[1], want=1 + n_new)
            raise Fail(msg, "not_resized")
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

        expect_close(
            got, ref, "the resized embedding", mistakes=self.mistake_table(pos, old, new),
            explain=explain,
        )  # fmt: skip

    @staticmethod
    def mistake_table(pos, old, new):
        def r(**kw):
            return lambda: resize64(pos, old, new, **kw)

        return named(
            POS_MISTAKES,
            no_permute=[r(grid_in="no_permute"), r(grid_out="no_permute"),
                        r(grid_in="no_permute", grid_out="no_permute")],
            # every way of putting h and w in the wrong order at one or more of the three
            # steps (reading the grid, the size asked of F.interpolate, writing the rows back)
            grid_transposed=[r(grid_in=gi, size_swapped=sw, grid_out=go)
                             for gi in ("right", "transposed", "wh")
                             for sw in (False, True)
                             for go in ("right", "transposed")
                             if (gi, sw, go) != ("right", False, "right")],
            cls_in_grid=r(cls="in_grid"),
            cls_last=r(cls="last"),
            sequence_1d=[lambda: sequence_1d64(pos, new, True),
                         lambda: sequence_1d64(pos, new, False)],
            bilinear=[r(mode="bilinear"), r(mode="bilinear", antialias=True)],
            align_corners=[r(align_corners=True), r(mode="bilinear", align_corners=True)],
            nearest=[r(mode="nearest"), r(mode="nearest-exact")],
            antialias=r(antialias=True),
        )  # fmt: skip
