"""07b.top_p_filter: top-p (nucleus) filtering (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Probe,
    randn,
    register,
)
from .filters import judge_filter
from .reference import far_from_p, top_p_keep, top_p_sorted_variants

TOP_P_MISTAKES = {
    "drops_crossing": "the token whose probability carries the total past p is removed: keep "
    "it. The nucleus is the smallest set whose probability reaches p (so it always holds the "
    "most likely token); remove a token when the probability of the tokens before it is "
    ">= p, (cum - probs) >= p.",
    "inverted": "the mask is inverted: the most likely tokens are removed and the tail is kept.",
    "on_logits": "the cumulative sum runs over the sorted logits: sum the probabilities, "
    "softmax of the sorted logits.",
    "wrong_dim": "the filter works over the wrong dim: sort, softmax and sum over the last dim "
    "(the vocabulary) of each row.",
    "softmax_dim": "the softmax of the sorted logits runs over the wrong dim (dim 0, across the "
    "rows): each row's probabilities come from its own logits, softmax(dim=-1).",
    "not_unsorted": "the result is in sorted order: put each logit back at its token's place "
    "(scatter with the sort's indices, or index with their argsort).",
    "gather_not_scatter": "the sorted logits are put back with gather(-1, indices), which "
    "sorts them once more: use scatter(-1, indices, ...), the inverse permutation.",
    "strict": "a token is kept although the probability of the tokens before it already "
    "equals p exactly: remove it when that mass reaches p, (cum - probs) >= p, not > p. The "
    "nucleus is the smallest set reaching p; here one token too many stays.",
    "ascending": "the tokens kept are those a row sorted ascending keeps (the least likely "
    "summed first and kept, the most likely removed): sort descending, "
    "logits.sort(dim=-1, descending=True), sum the probabilities with cumsum, and remove a "
    "token once the mass before it reaches p.",
    "no_sort": "the probabilities are summed in the vocabulary's order, not sorted: the kept "
    "tokens are the first of the vocabulary, not the most likely. Sort each row descending "
    "first, then put each logit back at its token's position.",
    "mask_not_unsorted": "the removal mask is built in sorted order and applied to the logits in "
    "their own order: its positions are ranks, not tokens. Apply it to the sorted logits and "
    "put them back with scatter(-1, indices, ...) (or scatter the mask back first).",
}


def _logits_far_from_p(gen, shape, p, scale=2.0):
    """Random logits whose cumulative probabilities all keep away from p."""
    while True:
        x = randn(*shape, generator=gen) * scale
        if far_from_p(x, p):
            return x


@register
class TopPFilterCheck(Exercise):
    id = "07b.top_p_filter"
    title = "top-p (nucleus) filtering"
    points = 2.0

    def probes(self, gen):
        # the notebook's example, and the same shuffled with 2 added to the logits (the same
        # probabilities): each known mistake keeps another set here
        x = torch.tensor([[math.log(q) for q in (0.5, 0.3, 0.15, 0.05)],
                          [math.log(q) + 2 for q in (0.05, 0.3, 0.5, 0.15)]])  # fmt: skip
        yield Probe("probabilities [0.5, 0.3, 0.15, 0.05] (and shuffled), p = 0.7", args=(x, 0.7))
        yield Probe("random (4, 10), p = 0.9", args=(_logits_far_from_p(gen, (4, 10), 0.9), 0.9))
        w = _logits_far_from_p(gen, (2, 3, 8), 0.5)
        yield Probe("random (2, 3, 8), p = 0.5", args=(w, 0.5))
        y = _logits_far_from_p(gen, (3, 6), 0.05, scale=1.0)
        yield Probe("p = 0.05, below the top probability: the top token alone", args=(y, 0.05))
        yield Probe("p = 1.0: every token", args=(randn(2, 7, generator=gen), 1.0))
        z = _logits_far_from_p(gen, (2, 9), 0.8).double()
        yield Probe("random (2, 9), float64, p = 0.8", args=(z, 0.8))
        # powers of 2 in float64: the softmax and the mass before the second token are exact
        # (float32 logits log(q) are not: the reference would see 0.5 + 3e-9 where float32
        # rounds to 0.5)
        exact = torch.tensor([[math.log(q) for q in (0.5, 0.25, 0.125, 0.125)],
                              [math.log(q) for q in (0.125, 0.5, 0.125, 0.25)]],
                             dtype=torch.float64)  # fmt: skip
        yield Probe(EXACT_P_CASE, args=(exact, 0.5))

    def judge(self, probe, out):
        x, p = probe.args
        keep = top_p_keep(x, p)
        variants = ("drops_crossing", "inverted", "on_logits", "strict", "ascending", "no_sort",
                    "mask_not_unsorted")  # fmt: skip
        variants += ("wrong_dim", "softmax_dim") if x.dim() > 1 else ()  # they need two dims
        masks = [(top_p_keep(x, p, variant=v), v) for v in variants]
        values = [(v, code) for code, v in top_p_sorted_variants(x, p).items()]
        judge_filter(out, x, keep, masks, values, TOP_P_MISTAKES)


EXACT_P_CASE = (
    "float64 probabilities [0.5, 0.25, 0.125, 0.125] (exact in binary), p = 0.5: the mass "
    "before the second token is exactly p"
)
