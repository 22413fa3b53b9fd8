"""Dropout placement, checked in training mode (notebooks 06, 07, 09).

The candidate runs in training mode on the CPU from a fixed seed; a float64 reference draws its
dropout masks from the same seed, in the same order, on tensors of the same shapes. PyTorch's CPU
dropout mask depends only on the generator's state and the tensor's shape (float32 and float64
give the same mask), so the two see the same masks. A dropout left out, added, or moved onto a
tensor of another shape or another place changes the output: the reference replays the known
misplacements (``Drops.skip`` / ``Drops.moved``) to name them.

Only torch is imported here (this module runs in grading kernels).
"""

from __future__ import annotations

import contextlib
import math

import torch
import torch.nn.functional as F

from .references import layer_norm64, substate

SEED = 20250611  # any fixed number: the masks only have to be the same on both sides
P = 0.3  # the dropout probability of the training-mode probes


@contextlib.contextmanager
def seeded(seed: int = SEED):
    """Run a block from a fixed CPU seed without touching the learner's global RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


@contextlib.contextmanager
def rng_untouched():
    """Build the learner's module without drawing from the notebook's global RNG: a check run
    before training must leave the notebook's random numbers as they were."""
    with torch.random.fork_rng(devices=[]):
        yield


def run_train_mode(module: torch.nn.Module, args: tuple, kwargs: dict | None = None):
    """The runner's half: the learner's module, in training mode, on the CPU, seeded."""
    module.train()
    with torch.no_grad(), seeded():
        return module(*args, **(kwargs or {}))


class Drops:
    """The reference's dropout, site by site, in order of the forward pass.

    A site's kind is "attn" (the attention weights), "ffn" (inside the feed-forward),
    "res.<sublayer>" (a sublayer's output before the residual sum), or a model's own ("pos"...).
    ``skip``: kinds left out; "res" skips every "res.*", "all" every site.
    ``moved``: named misplacements the reference functions below know (e.g. "ffn_after_linear2").
    """

    def __init__(self, p: float, skip=(), moved=()):
        self.p, self.skip, self.moved = p, set(skip), set(moved)

    def __call__(self, kind: str, x: torch.Tensor) -> torch.Tensor:
        if self.p == 0 or {kind, kind.split(".")[0], "all"} & self.skip:
            return x
        # the mask F.dropout draws for this shape (scaled by 1 / (1 - p)), times x in float64
        return x * F.dropout(torch.ones_like(x), self.p, training=True)


def reference_in_train_mode(fn, p: float, skip=(), moved=()) -> torch.Tensor:
    """``fn(drops)`` evaluated from the seed the runner used."""
    with torch.no_grad(), seeded():
        return fn(Drops(p, skip, moved))


def linear64(st: dict, name: str, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, st[f"{name}.weight"].double(), st[f"{name}.bias"].double())


def mha_drop64(st: dict, q_in, kv_in, num_heads: int, mask, drops: Drops) -> torch.Tensor:
    """Multi-head attention in float64 with dropout on the weights (B, H, T_q, T_k)."""
    B, T_q, d = q_in.shape
    T_k, dh = kv_in.shape[1], d // num_heads

    def split(x, T):  # (B, T, d) -> (B, H, T, d_head)
        return x.view(B, T, num_heads, dh).transpose(1, 2)

    q = split(linear64(st, "q_proj", q_in), T_q)
    k, v = split(linear64(st, "k_proj", kv_in), T_k), split(linear64(st, "v_proj", kv_in), T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = drops("attn", scores.softmax(-1))
    out = (weights @ v).transpose(1, 2).reshape(B, T_q, d)
    return linear64(st, "out_proj", out)


def ffn_drop64(st: dict, x, drops: Drops) -> torch.Tensor:
    """linear1, relu, dropout, linear2 (FeedForward's order), or a known misplacement."""
    h = F.relu(linear64(st, "linear1", x))  # (B, T, d_ff)
    h = h if "ffn_after_linear2" in drops.moved else drops("ffn", h)
    y = linear64(st, "linear2", h)
    return drops("ffn", y) if "ffn_after_linear2" in drops.moved else y


def norm64(st: dict, name: str, x) -> torch.Tensor:
    return layer_norm64(x, st[f"{name}.weight"], st[f"{name}.bias"], 1e-5)


def sublayer(x, f, norm, norm_first: bool, drops: Drops, name: str) -> torch.Tensor:
    """One residual sublayer with dropout on its output before the sum (or a misplacement)."""
    kind = f"res.{name}"
    if "res_after_sum" in drops.moved:  # x = dropout(x + f(...)): the residual is dropped too
        return drops(kind, x + f(norm(x))) if norm_first else norm(drops(kind, x + f(x)))
    if norm_first:
        return x + drops(kind, f(norm(x)))
    return norm(x + drops(kind, f(x)))


def encoder_block_drop64(st: dict, x, num_heads: int, mask, norm_first: bool, drops: Drops):
    """nn.TransformerEncoderLayer's computation and dropout placement, in float64."""
    sa, ff = substate(st, "self_attn."), substate(st, "ffn.")
    x = sublayer(
        x,
        lambda h: mha_drop64(sa, h, h, num_heads, mask, drops),
        lambda h: norm64(st, "norm1", h),
        norm_first,
        drops,
        "self",
    )
    ffn = lambda h: ffn_drop64(ff, h, drops)  # noqa: E731
    return sublayer(x, ffn, lambda h: norm64(st, "norm2", h), norm_first, drops, "ffn")


def decoder_drop64(
    st: dict,
    x,
    memory,
    num_heads: int,
    norm_first: bool,
    drops: Drops,
    *,
    tgt_mask=None,
    memory_mask=None,
) -> torch.Tensor:
    """nn.TransformerDecoderLayer's computation and dropout placement, in float64."""
    x, memory = x.double(), memory.double()
    sa, ca, ff = (substate(st, f"{n}.") for n in ("self_attn", "cross_attn", "ffn"))

    def norm(name):
        return lambda h: norm64(st, name, h)

    def self_attn(h):
        return mha_drop64(sa, h, h, num_heads, tgt_mask, drops)

    def cross_attn(h):
        return mha_drop64(ca, h, memory, num_heads, memory_mask, drops)

    x = sublayer(x, self_attn, norm("norm1"), norm_first, drops, "self")
    x = sublayer(x, cross_attn, norm("norm2"), norm_first, drops, "cross")
    return sublayer(x, lambda h: ffn_drop64(ff, h, drops), norm("norm3"), norm_first, drops, "ffn")


def blocks_drop64(
    st: dict,
    x,
    prefix: str,
    num_layers: int,
    num_heads: int,
    drops: Drops,
    *,
    mask=None,
    norm_first: bool = True,
) -> torch.Tensor:
    """A stack of encoder blocks (weights under ``prefix`` + "0.", ...) and the final ``norm``,
    on an input that has had its embedding dropout; misplacements "between_blocks" (an extra
    dropout after each block) and "after_final_norm"."""
    for i in range(num_layers):
        x = encoder_block_drop64(
            substate(st, f"{prefix}{i}."), x, num_heads, mask, norm_first, drops
        )
        x = drops("extra", x) if "between_blocks" in drops.moved else x
    x = norm64(st, "norm", x)
    return drops("extra", x) if "after_final_norm" in drops.moved else x


# the misplacements of a model built from encoder blocks (06, 09): (skip, moved, message, slug)
STACK_MISPLACEMENTS = [
    (
        {"attn", "ffn", "res"},
        (),
        "the blocks are built without dropout: pass `dropout` to every block, "
        "TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, ...).",
        "blocks_without_dropout",
    ),
    (
        (),
        {"between_blocks"},
        "an extra dropout is applied to each block's output: the blocks apply their own "
        "dropout, x = block(x) is all the loop needs.",
        "extra_dropout_between_blocks",
    ),
    (
        (),
        {"after_final_norm"},
        "an extra dropout is applied after the final norm: dropout belongs inside the blocks "
        "(and on the embedding), not on the normalized output.",
        "dropout_after_final_norm",
    ),
]


# the misplacements every block-level check replays: (skip, moved, message, slug)
BLOCK_MISPLACEMENTS = [
    (
        {"all"},
        (),
        "in training mode no dropout is applied: pass `dropout` on to every sublayer "
        "and use it (model.train() must change the output).",
        "no_dropout",
    ),
    (
        {"attn"},
        (),
        "no dropout on the attention weights: build the attention with "
        "MultiHeadAttention(d_model, num_heads, dropout).",
        "no_attention_dropout",
    ),
    (
        {"ffn"},
        (),
        "no dropout inside the feed-forward: build it with FeedForward(d_model, d_ff, dropout).",
        "no_ffn_inner_dropout",
    ),
    (
        {"res"},
        (),
        "no dropout on the sublayers' outputs: apply dropout to each sublayer's output before "
        "the residual sum, x + dropout(sublayer(...)).",
        "no_residual_dropout",
    ),
    (
        (),
        {"res_after_sum"},
        "dropout is applied after the residual sum, to x + sublayer(...): apply it to the "
        "sublayer's output only, x + dropout(sublayer(...)).",
        "dropout_after_residual_sum",
    ),
    (
        (),
        {"ffn_after_linear2"},
        "the feed-forward's dropout comes after linear2: it belongs between the activation "
        "and linear2 (FeedForward(d_model, d_ff, dropout) does that).",
        "ffn_dropout_after_linear2",
    ),
]
