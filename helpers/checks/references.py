"""Float64 reference formulas shared by the checks of several notebooks.

Each takes switches that produce the known wrong variants, so a judge can name the mistake a
candidate's output matches. Only torch is imported here (this module runs in grading kernels).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def substate(state: dict, prefix: str) -> dict:
    """The entries of ``state`` under ``prefix`` (e.g. "layers.0."), with the prefix removed."""
    return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}


def attention64(
    q,
    k,
    v,
    mask=None,
    *,
    scale: float | None = None,
    dim: int = -1,
    mask_mode: str = "before",
    fill: float = -math.inf,
    values=None,
    causal: bool = False,
    diagonal: int = 0,
    dropout=None,
    dropout_at: str = "weights",
    return_dropped: bool = True,
):
    """Softmax attention in float64: the one reference, with switches for the known mistakes.

    Returns (out, weights). ``scale``: what the scores are divided by (default sqrt(d_k));
    ``dim``: the softmax axis; ``mask`` (True = may attend) with ``mask_mode``: "before"
    (right), "inverted", "ignored", "after" (weights * mask after softmax), "zero" (blocked
    scores set to 0), "added" (scores + mask); ``causal``: a causal mask on top (``diagonal``
    as in tril); ``values``: what the weights multiply (default v); ``dropout`` (a function,
    training mode) on the "weights" or the "scores"; ``return_dropped=False`` returns the
    weights before it.
    """
    drop = dropout or (lambda t: t)
    q, k, v = q.double(), k.double(), v.double()
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.size(-1)) if scale is None else scale)
    scores = drop(scores) if dropout_at == "scores" else scores  # (..., T_q, T_k)
    if causal:
        tril = torch.ones(scores.shape[-2:], dtype=torch.bool).tril(diagonal)
        mask = tril if mask is None else mask & tril
    if mask is not None and mask_mode in ("before", "inverted"):
        scores = scores.masked_fill(~mask if mask_mode == "before" else mask, fill)
    if mask is not None and mask_mode == "zero":  # scores * mask, masked_fill(~mask, 0)
        scores = scores * mask
    if mask is not None and mask_mode == "added":  # scores + mask (a bool mask adds 1)
        scores = scores + mask
    weights = torch.softmax(scores, dim=dim)
    if mask is not None and mask_mode == "after":
        weights = weights * mask
    dropped = drop(weights) if dropout_at == "weights" else weights
    out = dropped @ (v if values is None else values.double())
    return out, (dropped if return_dropped else weights)


def attention_rounding64(q, k, v, mask=None, dtype=torch.float32):
    """(out, weights): how much rounding q, k and v to ``dtype`` may change each element of
    softmax attention's answer, to first order: a closed-form bound of the unit roundoff u times
    the sum, over every input element x, of |d answer / d x| |x| (never below that sum as
    autograd computes it; above it where the derivative's own terms cancel).

    A stable float32 answer is the exact answer for inputs changed by a few roundoffs, so it
    differs from the float64 reference by a small multiple of this bound. The bound is tiny for
    scores of size 1 and large for nearly tied scores of size 1,000: a float32 score there is off
    by about 1e-4, and the weights that share it by as much.
    """
    u = torch.finfo(dtype).eps / 2
    q, k, v = q.double(), k.double(), v.double()
    weights = attention64(q, k, v, mask)[1].nan_to_num(0.0)  # a fully masked row: no bound
    # q's rounding moves s_ij by at most u sum_m |q_im| |k_jm| / sqrt(d_k), and k's as much
    moved = 2 * u * (q.abs() @ k.abs().transpose(-2, -1)) / math.sqrt(q.size(-1))
    # d w_ij / d s_il = w_ij (delta_jl - w_il)
    bound_w = weights * (moved + (weights * moved).sum(-1, keepdim=True))
    bound_out = bound_w @ v.abs() + u * (weights @ v.abs())
    return bound_out, bound_w


def mha64(
    state: dict,
    num_heads: int,
    query,
    key,
    value,
    mask=None,
    *,
    split_transpose=True,
    merge_transpose=True,
    skip: tuple = (),
    scale: str = "d_head",
    k_from=None,
    v_from=None,
    values: str = "v",
    dropout=None,
    dropout_at: str = "weights",
    **attention,
):
    """Multi-head attention in float64 (nn.MultiheadAttention's numbers) with switches for the
    common mistakes: ``skip`` the projections left out, ``k_from``/``v_from`` what is projected
    instead of key/value, ``values="k"`` (the weights times the keys), ``scale`` "d_model" or
    "none"; ``dropout`` (a function, training mode) at ``dropout_at``: "weights" (right),
    "output", "values" or "scores"; ``attention``: :func:`attention64`'s switches (``dim``,
    ``mask_mode``, ``fill``, ``causal``: nanoGPT's attention is always causal, ``return_dropped``).
    """
    drop = dropout or (lambda t: t)
    B, T_q, d_model = query.shape
    H, d_head = num_heads, d_model // num_heads

    def proj(name, x):  # (B, T, d_model)
        if name in skip:
            return x.double()
        y = x.double() @ state[f"{name}.weight"].double().T
        return y + state[f"{name}.bias"].double() if f"{name}.bias" in state else y

    def split(x):  # (B, T, d_model) -> (B, H, T, d_head)
        if not split_transpose:
            return x.reshape(B, H, -1, d_head)
        return x.view(B, -1, H, d_head).transpose(1, 2)

    v = proj("v_proj", value if v_from is None else v_from)
    q, k = split(proj("q_proj", query)), split(proj("k_proj", key if k_from is None else k_from))
    heads, weights = attention64(
        q,
        k,
        split(drop(v) if dropout_at == "values" else v),
        mask,
        scale=math.sqrt({"d_head": d_head, "d_model": d_model, "none": 1.0}[scale]),
        values=k if values == "k" else None,
        dropout=dropout if dropout_at in ("scores", "weights") else None,
        dropout_at=dropout_at,
        **attention,
    )  # (B, H, T_q, d_head), (B, H, T_q, T_k)
    merged = (heads.transpose(1, 2) if merge_transpose else heads).reshape(B, T_q, d_model)
    out = proj("out_proj", merged)
    return (drop(out) if dropout_at == "output" else out), weights


def sinusoidal64(max_len: int, d_model: int, x=None, p: float = 0.0, training: bool = False):
    """Reference table in float64, PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...);
    given x (B, max_len, d_model), PositionalEncoding's forward: dropout(x + PE). Notebook 04's
    catalogue's wrong tables and modules are edits of it."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    j = torch.arange(d_model, dtype=torch.float64)  # column index
    two_i = 2 * torch.div(j, 2, rounding_mode="floor")  # columns 2i and 2i+1 share a frequency
    angle = pos * torch.pow(10000.0, -two_i / d_model)  # (max_len, d_model)
    pe = torch.where(j % 2 == 0, angle.sin(), angle.cos())
    return pe if x is None else F.dropout(x.double() + pe, p, training)


def layer_norm64(
    x: torch.Tensor,
    weight,
    bias,
    eps: float,
    dims=(-1,),
    unbiased: bool = False,
    eps_inside: bool = True,
) -> torch.Tensor:
    x = x.double()
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, keepdim=True, unbiased=unbiased)
    denom = (var + eps).sqrt() if eps_inside else var.sqrt() + eps
    y = (x - mean) / denom
    if weight is None:
        return y
    return y * weight.double() + bias.double()


def activation64(name: str, h: torch.Tensor) -> torch.Tensor:
    if name == "relu":
        return F.relu(h)
    if name == "gelu":
        return F.gelu(h)
    if name == "gelu_tanh":
        return F.gelu(h, approximate="tanh")
    raise ValueError(name)


def ffn64(
    state: dict,
    x: torch.Tensor,
    activation: str = "relu",
    prefix: str = "",
    dropout=None,
    dropout_at: str = "hidden",
) -> torch.Tensor:
    """linear2(dropout(act(linear1(x)))) in float64; ``dropout`` (a function, training mode)
    at ``dropout_at``: "hidden" (right), "pre_act", "output", "input" or "none"."""
    drop = dropout or (lambda t: t)

    def at(where, t):
        return drop(t) if dropout_at == where else t

    p = {k: v.double() for k, v in substate(state, prefix).items()}
    h = at("pre_act", F.linear(at("input", x.double()), p["linear1.weight"], p["linear1.bias"]))
    h = at("hidden", activation64(activation, h))
    y = F.linear(h, p["linear2.weight"], p["linear2.bias"])
    return at("output", y)


def attn64(
    state: dict, prefix: str, q_in, kv_in, num_heads: int, mask, dropout=None
) -> torch.Tensor:
    """Multi-head attention in float64 with the weights under ``prefix`` (e.g. "self_attn.")."""
    sub = substate(state, prefix)
    return mha64(sub, num_heads, q_in, kv_in, kv_in, mask, dropout=dropout)[0]


class Drops:
    """A training-mode dropout hook, site by site (the check's fixed-mask dropout, or None).

    Model-level sites are called by kind (``drops("pos", x)``); the blocks' sites go through
    :meth:`block_kwargs`. Kinds: "attn" (attention weights), "ffn" (inside the feed-forward),
    "res.self" / "res.cross" / "res.ffn" (a sublayer's output before the residual sum), and a
    model's own ("pos", "emb", "extra"). ``skip``: kinds left out ("res" skips every "res.*",
    "all" every site). ``moved``: named misplacements (e.g. "ffn_after_linear2").
    """

    def __init__(self, dropout=None, skip=(), moved=()):
        self.dropout, self.skip, self.moved = dropout, set(skip), set(moved)

    def skipped(self, kind: str) -> bool:
        return self.dropout is None or bool({kind, kind.split(".")[0], "all"} & self.skip)

    def __call__(self, kind: str, x: torch.Tensor) -> torch.Tensor:
        return x if self.skipped(kind) else self.dropout(x)

    def block_kwargs(self) -> dict:
        """The dropout arguments of :func:`block64` and ``decoder64`` for these sites."""
        sites = {
            "attn": ("weights", "cross_weights"),
            "ffn": ("ffn_hidden",),
            "res.self": ("attn_out",),
            "res.cross": ("cross_out",),
            "res.ffn": ("ffn_out",),
        }
        skip = tuple(s for kind, names in sites.items() if self.skipped(kind) for s in names)
        return {
            "dropout": self.dropout,
            "skip_dropout": skip,
            "dropout_after_sum": "res_after_sum" in self.moved,
            "ffn_dropout_at": "output" if "ffn_after_linear2" in self.moved else "hidden",
        }


def residual64(
    x,
    f,
    norm,
    *,
    norm_first: bool,
    keep: float = 1.0,
    sum_of_norm: bool = False,
    drop=None,
    after_sum: bool = False,
) -> torch.Tensor:
    """One residual sublayer: x + drop(f(norm(x))) (pre-LN) or norm(x + drop(f(x))) (post-LN).

    Mistakes: ``keep=0`` (no residual), ``sum_of_norm`` (post-LN written x + norm(f(x))),
    ``after_sum`` (dropout of the whole sum).
    """
    drop = drop or (lambda t: t)
    if norm_first:
        h = norm(x)
        r = x * keep
        return drop(r + f(h)) if after_sum else r + drop(f(h))
    if sum_of_norm:
        return x * keep + norm(drop(f(x)))
    return norm(drop(x * keep + f(x))) if after_sum else norm(x * keep + drop(f(x)))


def block64(
    state: dict,
    x: torch.Tensor,
    num_heads: int,
    *,
    norm_first: bool = True,
    activation: str = "relu",
    mask: torch.Tensor | None = None,
    dropout=None,
    skip_dropout: tuple[str, ...] = (),
    dropout_after_sum: bool = False,
    ffn_dropout_at: str = "hidden",
) -> torch.Tensor:
    """The encoder block (nn.TransformerEncoderLayer) in float64, in an encoder stack.

    ``dropout`` (a function, training mode) acts where PyTorch's layer has it: on the attention
    weights, after self-attention (dropout1), inside the feed-forward sublayer and after it
    (dropout2); ``skip_dropout`` leaves out some of "weights", "attn_out", "ffn_hidden",
    "ffn_out". Misplaced: ``dropout_after_sum`` (on x + sublayer), ``ffn_dropout_at="output"``
    (the feed-forward's after linear2).
    """
    x = x.double()

    def drop(name):
        return None if dropout is None or name in skip_dropout else dropout

    def norm(name):
        return lambda h: layer_norm64(h, state[f"{name}.weight"], state[f"{name}.bias"], 1e-5)

    def attn(h):
        return attn64(state, "self_attn.", h, h, num_heads, mask, dropout=drop("weights"))

    def ffn(h):
        d = drop("ffn_hidden")
        return ffn64(state, h, activation, prefix="ffn.", dropout=d, dropout_at=ffn_dropout_at)

    common = {"norm_first": norm_first, "after_sum": dropout_after_sum}
    x = residual64(x, attn, norm("norm1"), drop=drop("attn_out"), **common)
    return residual64(x, ffn, norm("norm2"), drop=drop("ffn_out"), **common)


def stack64(
    state: dict,
    x: torch.Tensor,
    prefix: str,
    num_layers: int,
    num_heads: int,
    drops: Drops,
    *,
    mask=None,
    norm_first: bool = True,
) -> torch.Tensor:
    """A stack of encoder blocks (weights under ``prefix`` + "0.", ...) and the final ``norm``,
    in training mode, on an input that has had its embedding dropout; misplacements
    "between_blocks" (an extra dropout after each block) and "after_final_norm"."""
    for i in range(num_layers):
        sub = substate(state, f"{prefix}{i}.")
        x = block64(sub, x, num_heads, norm_first=norm_first, mask=mask, **drops.block_kwargs())
        x = drops("extra", x) if "between_blocks" in drops.moved else x
    x = layer_norm64(x, state["norm.weight"], state["norm.bias"], 1e-5)
    return drops("extra", x) if "after_final_norm" in drops.moved else x


# misplaced dropout in a stack of encoder blocks (06's encoder, 09's ViT): stack64's switches
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
