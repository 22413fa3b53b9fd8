"""02.padding_mask: a padding mask (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_equal,
    expect_tensor,
    fmt_shape,
    named,
    randint,
    register,
)

PAD_MISTAKES = {
    "mask_inverted": "the mask is True at the padding: True marks the real tokens (tokens != "
    "pad_id), the ones that may be attended to.",
    "greater_than_pad": "the mask is tokens > pad_id: a real token may have a smaller id than "
    "pad_id (token 0 here); use tokens != pad_id.",
    "pad_id_ignored": "the mask compares with 0, not with pad_id = {pad_id}: use the pad_id "
    "argument.",
    "zero_also_padding": "the mask is False at id 0 as well as at pad_id = {pad_id}: id 0 is a "
    "real token here, and a mask made with .bool() (or != 0) treats every 0 as padding. "
    "Compare with pad_id alone: tokens != pad_id.",
    "counted": "the mask keeps the first n positions, n the number of real tokens: right only "
    "when the padding is at the end (notebook 07 pads on the left). Compare each token with "
    "pad_id: tokens != pad_id.",
}


@register
class PaddingMaskCheck(Exercise):
    id = "02.padding_mask"
    title = "a padding mask"
    points = 1.0
    axes = ("key (token of sentence 0)", "every query")

    def probes(self, gen):
        yield Probe(
            "tokens [[5, 7, 2, 0, 0], [3, 9, 0, 0, 0]], pad_id = 0",
            args=(torch.tensor([[5, 7, 2, 0, 0], [3, 9, 0, 0, 0]]), 0),
        )
        tokens = randint(gen, 4, 20, 3, 6)
        tokens[0, 4:] = 1
        tokens[1, 2:] = 1
        tokens[2, 0] = 0  # a real token with id 0
        yield Probe("random (3, 6) tokens, pad_id = 1, token 0 is real", args=(tokens, 1))
        yield Probe("no padding, (1, 4), pad_id = 2", args=(torch.tensor([[4, 5, 6, 7]]), 2))
        # real tokens on both sides of pad_id, and id 0 among them: tells "tokens > pad_id" from
        # "every 0 is padding", which agree on the case above
        yield Probe(
            "pad_id = 3, real tokens 0 and 2 below it",
            args=(torch.tensor([[2, 0, 5, 3, 3], [0, 2, 4, 6, 3]]), 3),
        )
        yield Probe(
            "padding on the left and in the middle, pad_id = 0 (notebook 07 pads on the left)",
            args=(torch.tensor([[0, 0, 5, 7, 2], [3, 0, 9, 0, 4]]), 0),
        )

    def judge(self, probe, out):
        tokens, pad_id = probe.args
        B, T = tokens.shape
        got = expect_tensor(out, "the mask")
        if got.dtype != torch.bool:
            raise Fail(
                f"the mask has dtype {got.dtype}: return booleans (tokens != pad_id is already "
                "bool).",
                "not_bool",
            )
        if tuple(got.shape) in ((B, T), (B, 1, T)):
            raise Fail(
                f"the mask has shape {fmt_shape(got.shape)}, expected ({B}, 1, 1, {T}): add the "
                "head and query dimensions (mask[:, None, None, :]) so it broadcasts against "
                "scores of shape (B, H, T_q, T_k).",
                "missing_dims",
            )
        if tuple(got.shape) == (B, T, 1, 1) or tuple(got.shape) == (B, 1, T, 1):
            raise Fail(
                f"the mask has shape {fmt_shape(got.shape)}: the tokens must sit on the last "
                f"(key) dimension, ({B}, 1, 1, {T}), so that padded *keys* are blocked.",
                "query_axis",
            )
        if tuple(got.shape) != (B, 1, 1, T):
            raise Fail(
                f"the mask has shape {fmt_shape(got.shape)}, expected ({B}, 1, 1, {T}).",
                "wrong_shape",
            )
        ref = (tokens != pad_id)[:, None, None, :]
        mistakes = named(
            PAD_MISTAKES,
            {"pad_id": pad_id},
            mask_inverted=~ref,
            greater_than_pad=[(tokens > pad_id)[:, None, None, :]]
            if (tokens < pad_id).any()
            else [],
            pad_id_ignored=[(tokens != 0)[:, None, None, :]] if pad_id != 0 else [],
            zero_also_padding=[((tokens != pad_id) & (tokens != 0))[:, None, None, :]]
            if pad_id != 0
            else [],
            counted=(torch.arange(T) < (tokens != pad_id).sum(-1, keepdim=True))[:, None, None],
        )
        otherwise = f"the mask is not tokens != pad_id; got {got[:, 0, 0].int().tolist()}"
        expect_equal(got, ref, mistakes, otherwise)
