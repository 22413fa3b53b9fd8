"""Notebook 07b's float64 references: the character tokenizer, the learning-rate schedule, the
sampling filters, gradient clipping. A reference is the correct code only; the known mistakes
are edits of it, in exercises/07b/catalogue.py.
"""

from __future__ import annotations

import math

import torch

# --------------------------------------------------------------------------- tokenizer


def encode64(text: str, vocab: str) -> torch.Tensor:
    """The id of each character: its index in ``vocab`` (the catalogue's programs edit it)."""
    ids = [vocab.index(c) for c in text]
    return torch.tensor(ids, dtype=torch.long)


def decode64(ids, vocab: str) -> str:
    """The characters of ``ids`` (a list or a 1-D tensor) joined (the catalogue's programs
    edit it)."""
    ids = [int(i) for i in ids]
    chars = [vocab[i] for i in ids]
    return "".join(chars)


# --------------------------------------------------------------------------- schedule


def lr64(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    """Linear warm-up, max_lr * (step + 1) / (warmup + 1) for step < warmup, then a cosine
    from max_lr at step = warmup down to min_lr at step = total, and min_lr after it (the
    catalogue's programs edit it)."""
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    cos = 0.5 * (1 + math.cos(math.pi * t))
    return min_lr + (max_lr - min_lr) * cos


# --------------------------------------------------------------------------- sampling


def temperature64(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """softmax(logits / temperature) over the last dim; a one-hot at the argmax for 0 (the
    first of the largest logits when several tie, as argmax gives). The catalogue's wrong
    programs are edits of it (exercises/07b/catalogue.py)."""
    x = logits.double()
    if temperature == 0:  # greedy
        first = x.argmax(-1)  # the first of the largest logits where several tie
        return torch.nn.functional.one_hot(first, x.size(-1)).double()
    scaled = x / temperature
    return scaled.softmax(-1)


def top_k64(logits: torch.Tensor, k: int) -> torch.Tensor:
    """Top-k filtering in float64: every logit below the k-th largest of its row set to -inf
    (ties with it stay); all of them kept when k >= the vocabulary. The catalogue's wrong
    programs are edits of it (exercises/07b/catalogue.py)."""
    x = logits.double()
    kk = min(k, x.size(-1))
    kth = x.topk(kk, dim=-1).values[..., -1:]  # (..., 1): the k-th largest of each row
    return x.masked_fill(x < kth, -math.inf)


def top_p64(logits: torch.Tensor, p: float) -> torch.Tensor:
    """Top-p filtering in float64: sorted by probability, every token whose preceding tokens'
    probability reaches p set to -inf (the smallest set that reaches p is kept, the token
    crossing p included). The catalogue's wrong programs are edits of it."""
    x = logits.double()
    sorted_x, idx = x.sort(dim=-1, descending=True)  # the most likely first
    probs = sorted_x.softmax(-1)
    cum = probs.cumsum(-1)
    remove = cum - probs >= p  # the mass before the token already reaches p
    kept = sorted_x.masked_fill(remove, -math.inf)
    return x.scatter(-1, idx, kept)  # each logit back at its token's place


def far_from_p(logits: torch.Tensor, p: float, margin: float = 0.02) -> bool:
    """Whether no row's cumulative probability lies within ``margin`` of p (so that float32
    rounding cannot move a token across it)."""
    probs = logits.double().softmax(-1).sort(dim=-1, descending=True).values
    return bool(((probs.cumsum(-1) - p).abs() > margin).all())


# --------------------------------------------------------------------------- gradient clipping


def clip64(grads: list, max_norm: float) -> tuple:
    """(the norm before clipping, the gradients after) in float64, None gradients skipped: the
    global L2 norm of all gradients, and each scaled by max_norm / (norm + 1e-6) when the norm
    exceeds max_norm. The catalogue's wrong programs are edits of it."""
    gs = [g.double() for g in grads if g is not None]
    total = torch.sqrt(sum((g * g).sum() for g in gs))  # the check's cases have a gradient
    coef = max_norm / (total + 1e-6)
    if total > max_norm:
        gs = [g * coef for g in gs]
    return total, gs


def clip_as_learner(program):
    """``program`` (clip64, or a wrong program made of it) as a learner's clip_grad_norm: it
    scales each ``p.grad`` in place and returns the norm in the gradients' dtype."""

    def clip_grad_norm(parameters, max_norm):
        params = [p for p in parameters if p.grad is not None]
        total, grads = program([p.grad.cpu() for p in params], max_norm)
        for p, g in zip(params, grads):
            p.grad.copy_(g)
        return total.to(params[0].grad.dtype).to(params[0].grad.device)

    return clip_grad_norm
