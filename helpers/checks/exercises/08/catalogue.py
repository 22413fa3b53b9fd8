"""Notebook 08's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "08.sliding_window_mask": {  # edits of sliding_window_mask.window64
        "inverted": {
            "message": "the mask is inverted: in this series True means may attend (True inside "
            "the window), the opposite of nn.MultiheadAttention's attn_mask.",
            "wrong": "return m -> return ~m",
        },
        "strict_window": {
            "message": "the window is off by one: a key at distance exactly `window` is inside "
            "it, use abs(i - j) <= window, not < window.",
            "wrong": "abs() <= window -> abs() < window",
        },
        "window_too_wide": {
            "message": "the window is off by one: it reaches `window + 1` tokens away; use "
            "abs(i - j) <= window.",
            "wrong": "abs() <= window -> abs() <= window + 1",
        },
        "causal_ignored": {
            "message": "the `causal` flag is ignored: with causal=True a query i may only see "
            "keys j <= i (and within the window).",
            "wrong": "if causal: -> if False:",
        },
        "causal_keeps_future": {
            "message": "the causal part keeps the future (j >= i): keep keys j <= i, i.e. the "
            "lower triangle (tril).",
            "wrong": "(j <= i) -> (j >= i)",
        },
        "diagonal_only": {
            "message": "the causal window keeps only each token itself (j == i): with "
            "causal=True keep the keys j <= i with i - j <= window; (j <= i) & (j >= i) leaves "
            "the diagonal only.",
            "wrong": "(j <= i) -> (j <= i) & (j >= i)",
        },
        "causal_when_not_asked": {
            "message": "the mask is causal although {flag}: without the flag the window is "
            "symmetric, abs(i - j) <= window.",
            "wrong": "if causal: -> if True:",
        },
        "no_abs": {
            "message": "the distance has no abs(): i - j <= window keeps every key after the "
            "query. Use abs(i - j) <= window.",
            "wrong": "(i - j).abs() <= window -> i - j <= window",
        },
        "wrong_shape": {
            "message": "the mask has shape {shape}, expected ({T}, {T}).",
            "example": "torch.arange(T)[None, :] -> torch.arange(T + 1)[None, :]",
        },
        "not_bool": {
            "message": "the mask has dtype {dtype}: return a boolean tensor, True = may attend.",
            "example": "return m -> return m.long()",
        },
    },
}
