"""02.padding_mask: a padding mask (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, Probe, expect_equal, expect_tensor, fmt_shape, randint, register
from ...mistakes import variants


def padding64(tokens, pad_id):
    """The reference: (B, T) -> (B, 1, 1, T), True at the real tokens (the catalogue's programs
    edit it)."""
    return (tokens != pad_id)[:, None, None, :]


@register
class PaddingMaskCheck(Exercise):
    id = "02.padding_mask"
    title = "a padding mask"
    points = 1.0
    axes = ("key (token of sentence 0)", "every query")
    reference64 = staticmethod(padding64)

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
        shape = {"shape": fmt_shape(got.shape), "B": B, "T": T}
        if got.dtype != torch.bool:
            raise self.fail("not_bool", dtype=got.dtype)
        if tuple(got.shape) in ((B, T), (B, 1, T)):
            raise self.fail("missing_dims", **shape)
        if tuple(got.shape) == (B, T, 1, 1) or tuple(got.shape) == (B, 1, T, 1):
            raise self.fail("query_axis", **shape)
        if tuple(got.shape) != (B, 1, 1, T):
            raise self.fail("wrong_shape", **shape)
        mistakes = variants(self.mistakes, padding64, (tokens, pad_id), fields={"pad_id": pad_id})
        otherwise = f"the mask is not tokens != pad_id; got {got[:, 0, 0].int().tolist()}"
        expect_equal(got, padding64(tokens, pad_id), mistakes, otherwise)
