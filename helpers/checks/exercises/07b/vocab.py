"""Notebook 07b: what the tokenizer's and the schedule's checks share (the vocabulary, the one
known mistake that explains an answer)."""

from __future__ import annotations

import torch

VOCAB = "\n !',.:?ATYabcdefghiklmnoprstuvwxyz"  # sorted, as sorted(set(text)) gives it


def _unsorted(gen: torch.Generator, vocab: str = VOCAB) -> str:
    """The characters of ``vocab`` in a random order (a vocab need not be sorted)."""
    return "".join(vocab[i] for i in torch.randperm(len(vocab), generator=gen).tolist())


def only(found: list[str]) -> str | None:
    """The code of the one known mistake that gives the answer, None when none or several do
    (a message must not name a cause the code may not have)."""
    codes = list(dict.fromkeys(found))
    return codes[0] if len(codes) == 1 else None
