"""07b.top_k_filter: top-k filtering (its check)."""

from __future__ import annotations

import re

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    randn,
    register,
)
from .filters import judge_filter
from .reference import top_k_keep

TOP_K_MISTAKES = {
    "strict": "the k-th largest logit is removed too, so fewer than k are left: keep every "
    "logit >= the k-th largest (remove logits < it, not <=), with k = min(k, vocabulary size).",
    "k_plus_one": "k + 1 logits are kept: keep the k largest (the k-th largest is "
    "torch.topk(logits, k).values[..., -1:]).",
    "smallest": "the k smallest logits are kept: keep the k largest.",
    "exactly_k": "with a tie at the k-th largest value only some of the tied logits are kept "
    "(the indices torch.topk returns): keep every logit >= the k-th largest, ties included.",
    "wrong_dim": "the logits kept are those a filter over the wrong dim (dim 0) keeps: keep "
    "the k largest of each row of the vocabulary, the last dim.",
    "kth_smallest": "the threshold is the k-th smallest logit of the row (torch.kthvalue counts "
    "from the smallest, and so does an ascending sort's [k - 1]), not the k-th largest: far "
    "too many logits stay. Use torch.topk(logits, k).values[..., -1:], or a descending sort.",
    "whole_batch": "one threshold for the whole batch (the k-th largest of all the logits, "
    "flattened): filter each row on its own, torch.topk(logits, k, dim=-1), so that every row "
    "keeps its k largest.",
    "not_column": "the k-th largest of each row has shape (...,), not a column (..., 1): "
    "compared with the logits it broadcasts along the vocabulary, and each logit meets another "
    "row's threshold. Keep the last dim, values[..., -1:] (or keepdim=True).",
}


@register
class TopKFilterCheck(Exercise):
    id = "07b.top_k_filter"
    title = "top-k filtering"
    points = 1.0

    def probes(self, gen):
        yield Probe("logits [2, -1, 0.5, 3, 0], k = 2",
                    args=(torch.tensor([[2.0, -1.0, 0.5, 3.0, 0.0]]), 2))  # fmt: skip
        yield Probe("random (4, 10), k = 3", args=(randn(4, 10, generator=gen), 3))
        yield Probe("random (2, 3, 7), k = 1", args=(randn(2, 3, 7, generator=gen), 1))
        ties = torch.tensor([[1.0, 2.0, 2.0, 0.0, 3.0], [0.5, 0.5, 0.5, -1.0, 2.0]])
        yield Probe("ties at the k-th largest, k = 2", args=(ties, 2))
        yield Probe("k = 10 larger than the vocabulary (6)", args=(randn(3, 6, generator=gen), 10))
        yield Probe("random (2, 9), float64, k = 4",
                    args=(randn(2, 9, dtype=torch.float64, generator=gen), 4))  # fmt: skip
        yield Probe("random (5, 5), k = 2 (as many rows as logits)",
                    args=(randn(5, 5, generator=gen), 2))  # fmt: skip

    def explain_error(self, probe, error):
        x, k = probe.args
        sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
                          error)  # fmt: skip
        if x.dim() > 1 and sizes and {int(n) for n in sizes.groups()} == {x.size(-1), x.size(-2)}:
            return Fail(TOP_K_MISTAKES["not_column"], "not_column")
        if k > x.size(-1) and ("out of range" in error or "selected index" in error):
            return Fail(
                f"k = {k} is larger than the vocabulary ({x.size(-1)}) and torch.topk raised: "
                "use k = min(k, logits.size(-1)); then every logit is kept.",
                "k_larger_than_vocab",
            )
        return None

    def judge(self, probe, out):
        x, k = probe.args
        keep = top_k_keep(x, k)
        variants = ("strict", "k_plus_one", "smallest", "exactly_k", "kth_smallest")
        if x.dim() > 1:  # these need two dims
            variants += ("wrong_dim", "whole_batch", "not_column")
        masks = [(top_k_keep(x, k, variant=v), v) for v in variants]
        judge_filter(out, x, keep, masks, [], TOP_K_MISTAKES)
