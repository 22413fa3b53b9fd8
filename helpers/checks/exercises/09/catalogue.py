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

#: the ViT's steps its slips change: the final LayerNorm, the position embedding, the token read
NO_NORM = 'x = F.layer_norm(x, (x.shape[-1],), st["norm.weight"], st["norm.bias"], 1e-5) -> pass'
NO_POS, NO_CLS = 'x = x + st["pos_embed"] -> pass', "x = torch.cat([cls, x], dim=1) -> pass"
POS_OF_PATCHES, MEAN = 'st["pos_embed"] -> st["pos_embed"][:, 1:]', "x[:, 0] -> x.mean(1)"

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
    "09.VisionTransformer": {  # edits of reference.vit64
        "no_final_norm": {
            "message": "the final LayerNorm is missing: apply self.norm to the output of the last "
            "block before the head (pre-LN blocks leave the residual stream unnormalized).",
            "wrong": NO_NORM,
        },
        "no_pos_embed": {
            "message": "the position embedding is not added: x = cat([cls, patches]) + pos_embed.",
            "wrong": NO_POS,
        },
        "pos_embed_subtracted": {
            "message": "pos_embed is subtracted: add it, x = cat([cls, patches]) + pos_embed.",
            "wrong": 'x + st["pos_embed"] -> x - st["pos_embed"]',
        },
        "pos_embed_skips_cls": {
            "message": "pos_embed is added before the CLS token is prepended, so the CLS token "
            "gets no position embedding: prepend first, then add all N + 1 rows.",
            "wrong": (NO_POS, 'cat([cls, x] -> cat([cls, x + st["pos_embed"][:, 1:]]'),
        },
        "pos_embed_before_cls": {
            "message": "pos_embed is added to the patches before the CLS token is prepended (its "
            "first N rows): prepend the CLS token first, then add all N + 1 rows.",
            "wrong": (NO_POS, 'cat([cls, x] -> cat([cls, x + st["pos_embed"][:, :-1]]'),
        },
        "first_patch": {
            "message": "the head reads the first patch, x[:, 1]: the CLS token is token 0, x[:, "
            "0].",
            "wrong": "x[:, 0] -> x[:, 1]",
        },
        "no_cls": {
            "message": "there is no CLS token in the sequence: prepend cls_token (expanded to (B, "
            "1, d_model)) to the patch embeddings, add pos_embed, and classify from x[:, 0].",
            # read from the mean or the first token, with the position embedding or none, with
            # the final LayerNorm or none
            "wrong": [
                (NO_CLS, *pool, pos, *norm)
                for pool in ((MEAN,), ())
                for pos in (POS_OF_PATCHES, NO_POS)
                for norm in ((), (NO_NORM,))
            ],
        },
        "cls_at_end": {
            "message": "the CLS token is appended after the patches: prepend it, torch.cat([cls, "
            "x], dim=1), so that it is token 0 and gets pos_embed[:, 0], as attention_maps and "
            "the head expect.",
            "wrong": [
                ("cat([cls, x] -> cat([x, cls]", "x[:, 0] -> x[:, -1]"),
                "cat([cls, x] -> cat([x, cls]",
            ],  # fmt: skip
        },
        "blocks_not_run": {
            "message": "the blocks do not run: feed the tokens through each of them, for block in "
            "self.blocks: x = block(x).",
            "wrong": 'range(init["num_layers"]) -> range(0)',
        },
        "mean_pooling": {
            "message": "the head reads the mean of all tokens: classify from the CLS token, x[:, "
            "0].",
            "wrong": MEAN,
        },
        "mean_pooling_patches": {
            "message": "the head reads the mean of the patch tokens: classify from the CLS token, "
            "x[:, 0] (mean pooling is an open exercise).",
            "wrong": "x[:, 0] -> x[:, 1:].mean(1)",
        },
        "last_token": {
            "message": "the head reads the last token: the CLS token is the first one, x[:, 0].",
            "wrong": "x[:, 0] -> x[:, -1]",
        },
        "post_ln_blocks": {
            "message": "the blocks are post-LN: build them with norm_first=True (pre-LN, as in "
            "ViT).",
            "wrong": '"norm_first": True -> "norm_first": False',
        },
    },
}
