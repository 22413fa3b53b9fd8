"""Notebook 09's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

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
}
