"""Notebook 09's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

HOW = (
    "Keep pos_embed[:, :1], reshape the other rows to (1, h, w, d), permute(0, 3, 1, 2), "
    "F.interpolate(..., size=(new_h, new_w), mode='bicubic', align_corners=False), then "
    "permute(0, 2, 3, 1).reshape(1, new_h * new_w, d) and put the CLS row back in front."
)
#: interpolate_pos_embed's steps that order the grid's h and w: reading the rows as a grid
#: (permuted to (1, d, w, h), or read as a (w, h) grid), the size asked, writing the rows back
READ_T = ".permute(0, 3, 1, 2) -> .permute(0, 3, 2, 1)"
READ_WH = "(1, oh, ow, d) -> (1, ow, oh, d)"
SIZE_SWAPPED = "size=(nh, nw) -> size=(nw, nh)"
WRITE_T = ".permute(0, 2, 3, 1) -> .permute(0, 3, 2, 1)"
#: the rows interpolated as a 1-D sequence (linear), the CLS row kept apart or among them
SEQUENCE_1D = [
    """def resize64(pos, old, new):
    pos, n = pos.double(), new[0] * new[1]
    rows = F.interpolate(pos[:, 1:].transpose(1, 2), size=n, mode="linear").transpose(1, 2)
    return torch.cat([pos[:, :1], rows], dim=1)""",
    """def resize64(pos, old, new):
    size = 1 + new[0] * new[1]
    return F.interpolate(pos.double().mT, size=size, mode="linear").transpose(1, 2)""",
]
BICUBIC = 'mode="bicubic" -> mode="bilinear"'
ANTIALIAS = "align_corners=False -> align_corners=False, antialias=True"

CATALOGUE = {
    "09.patchify": {  # edits of patchify.patches64
        "patches_transposed": {
            "message": "the patches are transposed, (B, C*p*p, N): transpose to (B, N, C*p*p), "
            "one row per patch.",
            "wrong": "reshape(B, -1, C * p * p) -> reshape(B, -1, C * p * p).transpose(1, 2)",
        },
        "plain_reshape": {
            "message": "the image was reshaped to (B, N, C*p*p) without a permute: a reshape "
            "keeps the memory order, so each 'patch' is a run of pixels along a row. Reshape to "
            "(B, C, H/p, p, W/p, p), permute to (B, H/p, W/p, C, p, p), then flatten.",
            "wrong": ".permute(0, 2, 4, 1, 3, 5) -> ",
        },
        "channels_last": {
            "message": "each patch is flattened channels-last (p, p, C): flatten it in (C, p, p) "
            "order, as Conv2d's weight is laid out (permute to (B, H/p, W/p, C, p, p)).",
            "wrong": "permute(0, 2, 4, 1, 3, 5) -> permute(0, 2, 4, 3, 5, 1)",
        },
        "column_major": {
            "message": "the patches are in column-major order (down the first column first): "
            "number them row by row, left to right, like reading text (H/p before W/p).",
            "wrong": "permute(0, 2, 4, 1, 3, 5) -> permute(0, 4, 2, 1, 3, 5)",
        },
        "column_major_channels_last": {
            "message": "the patches are in column-major order and flattened channels-last: use "
            "row-major patches, each flattened in (C, p, p) order.",
            "wrong": "permute(0, 2, 4, 1, 3, 5) -> permute(0, 4, 2, 3, 5, 1)",
        },
        "pixels_column_major": {
            "message": "the pixels inside each patch are flattened column by column: keep (C, "
            "p_row, p_col) order.",
            "wrong": "permute(0, 2, 4, 1, 3, 5) -> permute(0, 2, 4, 1, 5, 3)",
        },
        "unfold_not_permuted": {
            "message": "the result of Tensor.unfold was reshaped without a permute: "
            "images.unfold(2, p, p).unfold(3, p, p) is (B, C, H/p, W/p, p, p); permute it to (B, "
            "H/p, W/p, C, p, p) so that each row holds one patch in (C, p, p) order.",
            "wrong": "permute(0, 2, 4, 1, 3, 5) -> permute(0, 1, 2, 4, 3, 5)",
        },
    },
    "09.PatchEmbedding": {  # edits of reference.embed64
        "no_transpose": {
            "message": "Conv2d's output (B, d_model, N) was reshaped to (B, N, d_model) without "
            "a transpose: this scrambles patches and features. Use .flatten(2).transpose(1, 2).",
            "wrong": "y.flatten(2).transpose(1, 2) -> y.reshape(len(y), -1, y.shape[1])",
        },
        "column_major": {
            "message": "the patches are in column-major order: flatten the (H/p, W/p) grid row "
            "by row, .flatten(2) on (B, d_model, H/p, W/p).",
            "wrong": "y.flatten(2) -> y.transpose(2, 3).flatten(2)",
        },
        "no_bias": {
            "message": "the bias of proj is not applied.",
            "wrong": 'state[f"{prefix}bias"].double() -> None',
        },
    },
    "09.interpolate_pos_embed": {  # edits of interpolate_pos_embed.resize64
        "no_permute": {
            "message": "features of different patches are mixed, as when the rows are reshaped "
            "straight to (1, d, h, w) (or the result straight back to rows) without a permute, "
            "or permuted in another order: a reshape keeps the memory order. Reshape to (1, h, "
            "w, d) and permute(0, 3, 1, 2); on the way back permute(0, 2, 3, 1) before the "
            "reshape.",
            "wrong": [
                "reshape(1, oh, ow, d).permute(0, 3, 1, 2) -> reshape(1, d, oh, ow)",
                "out.permute(0, 2, 3, 1).reshape -> out.reshape",
                (
                    "reshape(1, oh, ow, d).permute(0, 3, 1, 2) -> reshape(1, d, oh, ow)",
                    "out.permute(0, 2, 3, 1).reshape -> out.reshape",
                ),
            ],
        },
        "grid_transposed": {
            "message": "rows and columns of the grid are swapped: the rows are numbered row by "
            "row, so row 1 + i*w + j is grid cell (i, j) of an (h, w) = (rows, columns) grid. "
            "Check each step that orders them: reshape to (1, h, w, d) (not (1, w, h, d)) and "
            "permute(0, 3, 1, 2), interpolate to size=(new_h, new_w) (not (new_w, new_h)), and "
            "permute(0, 2, 3, 1) back to the same row-major order.",
            # every way of putting h and w in the wrong order at one or more of the three steps
            # (all three transposed is the right grid)
            "wrong": [
                read + size + write
                for read in ((), (READ_T,), (READ_WH,))
                for size in ((), (SIZE_SWAPPED,))
                for write in ((), (WRITE_T,))
                if read + size + write not in ((), (READ_T, SIZE_SWAPPED, WRITE_T))
            ],
        },
        "cls_in_grid": {
            "message": "the grid was taken from the first h*w rows, pos_embed[:, :h*w], so the "
            "CLS row was interpolated as the top-left patch and the last patch was dropped: the "
            "grid is pos_embed[:, 1:].",
            "wrong": "pos[:, 1:] -> pos[:, : oh * ow]",
        },
        "cls_last": {
            "message": "the CLS row was put after the grid: it stays first, torch.cat([cls, "
            "grid], dim=1).",
            "wrong": "torch.cat([head, out] -> torch.cat([out, head]",
        },
        "sequence_1d": {
            "message": "the rows were interpolated as a 1-D sequence: position embeddings of "
            "patches live on a 2-D grid, and neighbours in the sequence are not neighbours in "
            "the image at a row's end. " + HOW,
            "wrong": SEQUENCE_1D,
        },
        "bilinear": {
            "message": "this is bilinear interpolation: the contract asks for mode='bicubic' "
            "(align_corners=False).",
            "wrong": [
                BICUBIC,
                (BICUBIC, "align_corners=False -> align_corners=False, antialias=True"),
            ],
        },
        "align_corners": {
            "message": "align_corners=True: the contract asks for align_corners=False (DeiT's "
            "and timm's choice: the grid cells' centres, not their corners, are resampled).",
            "wrong": [
                "align_corners=False -> align_corners=True",
                (BICUBIC, "align_corners=False -> align_corners=True"),
            ],
        },
        "nearest": {
            "message": "this is nearest-neighbour resizing (mode='nearest'): use mode='bicubic', "
            "align_corners=False.",
            "wrong": [
                'mode="bicubic", align_corners=False -> mode="nearest"',
                'mode="bicubic", align_corners=False -> mode="nearest-exact"',
            ],
        },
        "antialias": {
            "message": "antialias=True: leave it at its default, False (with antialias, "
            "PyTorch's bicubic uses another kernel, PIL's, even when it upsamples).",
            "wrong": ANTIALIAS,
        },
        "not_resized": {
            "message": "the grid rows were not resized: the output has {got} rows where 1 + "
            "new_h*new_w = {want} were expected. " + HOW,
            "example": "return torch.cat([head, out], dim=1) -> return pos",
        },
    },
}
