"""Errors whose cause the error itself shows, on any exercise: a catalogue of (the words of
torch's or Python's message, what the learner's own line must hold, the message, the code).

A crash is named only where its words leave one cause: ``x.max(dim)`` subtracted as it is
raises with ``torch.return_types.max`` in the message, whatever the exercise. The raw error and
the learner's line follow the message (checks/__init__.py's ``error_fail``).
"""

from __future__ import annotations

import re

from .framework import Fail

#: (pattern of the error, pattern of the learner's line or None, message, code)
KNOWN_ERRORS = [
    (
        r"torch\.return_types\.(max|min)\b",
        None,
        "x.max(dim=...) and x.min(dim=...) return a pair (values, indices), not a tensor: take "
        "its .values (x.max(dim=dim, keepdim=True).values), or use x.amax(dim=dim, "
        "keepdim=True), which returns the tensor alone.",
        "max_returns_pair",
    ),
    (
        r"view size is not compatible with input tensor's size and stride",
        None,
        "view() needs a tensor whose memory is laid out in its order of dims, and a permute or a "
        "transpose leaves it out of order (not contiguous): use .reshape(...), which copies "
        "where it must, or .contiguous().view(...).",
        "view_not_contiguous",
    ),
    (
        r"The shape of the mask \[[\d, ]*\] at index \d+ does not match the shape of the "
        r"indexed tensor",
        None,
        "boolean indexing (scores[~mask] = ...) needs a mask of the indexed tensor's full shape, "
        "and a mask that only broadcasts ((T, T) over (B, H, T, T), or (B, 1, 1, T)) does not "
        "have it: use scores.masked_fill(~mask, float('-inf')) or torch.where(mask, scores, "
        "...), which broadcast the mask.",
        "bool_index_mask",
    ),
    (
        r"must have the same dtype, but got Bool and \w+|expected m1 and m2 to have the same "
        r"dtype, but got: bool",
        r"attn\([^=]*,\s*\w*mask\w*\s*\)",
        "a boolean mask reached a projection's matrix product: it is passed as a positional "
        "argument, and the attention module's second positional argument is `key` (forward("
        "query, key=None, value=None, mask=None)). Pass it by name: self_attn(h, mask=mask).",
        "mask_as_key",
    ),
    (
        r"expected scalar type (Float but found Double|Double but found Float)|same dtype, but "
        r"got (Double and Float|Float and Double)|expected m1 and m2 to have the same dtype, "
        r"but got: (double != float|float != double)|found dtype (Float|Double) but expected "
        r"(Double|Float)",
        None,
        "a float32 tensor met a float64 one in one operation: this case is float64, and "
        "something in your code makes float32 (softmax(..., dtype=torch.float32), .float(), "
        "torch.zeros(...) or torch.tensor(...) without dtype=): keep the inputs' dtype, "
        "dtype=x.dtype or torch.zeros_like(x).",
        "dtype_not_kept",
    ),
    (
        r"object of type '\w*(iterator|generator)' has no len\(\)",
        None,
        "a generator (or any iterator) has no len(): the batches may come one at a time, so "
        "count them as you go (n += 1 in the loop) and divide by that count.",
        "len_of_iterator",
    ),
    (
        r"one_hot is only applicable to index tensor|tensors used as indices must be long|"
        r"Expected tensor for argument #1 'indices' to have one of the following scalar types",
        None,
        "token ids must be integers (torch.long): a tensor made with torch.ones(...) * bos_id "
        "or torch.full(..., float) is float, and so is everything concatenated to it. Make it "
        "with dtype=torch.long.",
        "ids_not_long",
    ),
]


def known_error(error: str) -> Fail | None:
    """The :class:`Fail` naming the one cause ``error`` shows (the learner's line in it, for an
    entry that needs it), or None."""
    line = error.split("\n   in ", 1)[1] if "\n   in " in error else ""
    for words, on_line, message, code in KNOWN_ERRORS:
        if re.search(words, error) and (on_line is None or re.search(on_line, line)):
            return Fail(f"{message}\n   {error}", code)
    return None
