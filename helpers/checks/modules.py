"""Module checks shared by several notebooks: the module-info verdict, parameter names and
shapes under the contract's names, random states, PyTorch's reference layers loaded with
them (the contract's names -> PyTorch's), and the named mistakes of attention weights and of
LayerNorm's variance, which any later module built on them can show too."""

from __future__ import annotations

import math

import torch
from torch import nn

from .framework import Fail, randn
from .references import PROJECTIONS, layer_norm64


def judge_module_info(probe, out, name: str, judge) -> None:
    """``out`` is ``module_info``'s dict when the class built a module; else Fail."""
    if not isinstance(out, dict) or set(out) != {"parameters", "buffers", "children"}:
        raise Fail(
            f"{name}(...) should build a torch.nn.Module: subclass nn.Module and call "
            "super().__init__() first in __init__.",
            "not_a_module",
        )
    judge(probe, out)


def expect_names(
    info: dict, expected: dict[str, list[int]], name: str, hints: dict[str, str] | None = None
) -> None:
    """Parameters named exactly as the contract says, with the expected shapes."""
    hints = hints or {}
    params, buffers = info["parameters"], info["buffers"]
    for key, shape in expected.items():
        if key not in params:
            if key in buffers:
                raise Fail(
                    f"{key} is a buffer: make it an nn.Parameter so that it is trained.",
                    "param_is_buffer",
                )
            found = ", ".join(sorted(params)) or "none"
            raise Fail(
                f"{name} has no parameter `{key}` (found: {found}). "
                + hints.get(
                    key,
                    "The names are part of the contract: weights are copied "
                    "from PyTorch's module by name.",
                ),
                "missing_parameter",
            )
        if list(params[key]) != list(shape):
            raise Fail(
                f"{key} has shape {tuple(params[key])}, expected {tuple(shape)}."
                + (" " + hints[key + ".shape"] if key + ".shape" in hints else ""),
                "parameter_shape",
            )
    extra = sorted(set(params) - set(expected))
    if extra:
        raise Fail(
            f"{name} has parameters the contract does not have: {', '.join(extra)}.",
            "extra_parameters",
        )


def linear_state(gen, d_in: int, d_out: int, prefix: str) -> dict:
    return {
        f"{prefix}weight": randn(d_out, d_in, generator=gen) / math.sqrt(d_in),
        f"{prefix}bias": 0.3 * randn(d_out, generator=gen),
    }


# the sublayers of an encoder block; a decoder block adds cross-attention and a third norm
ENCODER_PARTS = {"attns": ("self_attn",), "norms": ("norm1", "norm2")}
DECODER_PARTS = {"attns": ("self_attn", "cross_attn"), "norms": ("norm1", "norm2", "norm3")}
# nn.TransformerDecoderLayer's name for cross-attention
TORCH_ATTN_NAMES = {"self_attn": "self_attn", "cross_attn": "multihead_attn"}


def block_state(
    gen, d: int, d_ff: int, prefix: str = "", norm_scale=(0.3, 0.2), parts=ENCODER_PARTS
) -> dict:
    """Random weights of one block under the contract's names (norms away from 1, 0)."""
    st = {}
    for attn in parts["attns"]:
        for proj in PROJECTIONS:
            st.update(linear_state(gen, d, d, f"{prefix}{attn}.{proj}."))
    st.update(linear_state(gen, d, d_ff, f"{prefix}ffn.linear1."))
    st.update(linear_state(gen, d_ff, d, f"{prefix}ffn.linear2."))
    for norm in parts["norms"]:
        st[f"{prefix}{norm}.weight"] = 1.0 + norm_scale[0] * randn(d, generator=gen)
        st[f"{prefix}{norm}.bias"] = norm_scale[1] * randn(d, generator=gen)
    return st


def block_names(d: int, d_ff: int, parts=ENCODER_PARTS) -> dict[str, list[int]]:
    """The contract's parameter names and shapes of one block, in the order they are checked."""
    names = {}
    for attn in parts["attns"]:
        for proj in PROJECTIONS:
            names[f"{attn}.{proj}.weight"] = [d, d]
            names[f"{attn}.{proj}.bias"] = [d]
    names["ffn.linear1.weight"], names["ffn.linear1.bias"] = [d_ff, d], [d_ff]
    names["ffn.linear2.weight"], names["ffn.linear2.bias"] = [d, d_ff], [d]
    for norm in parts["norms"]:
        names[f"{norm}.weight"] = [d]
        names[f"{norm}.bias"] = [d]
    return names


def to_torch_names(state: dict, parts=ENCODER_PARTS) -> dict:
    """The contract's state dict -> nn.TransformerEncoderLayer's (or, with DECODER_PARTS,
    nn.TransformerDecoderLayer's) names: q/k/v stacked into in_proj, ffn. dropped."""
    out = {}
    for ours in parts["attns"]:
        theirs = TORCH_ATTN_NAMES[ours]
        for kind in ("weight", "bias"):
            stacked = [state[f"{ours}.{p}.{kind}"] for p in PROJECTIONS[:3]]
            out[f"{theirs}.in_proj_{kind}"] = torch.cat(stacked)
            out[f"{theirs}.out_proj.{kind}"] = state[f"{ours}.out_proj.{kind}"]
    for key, value in state.items():
        if key.startswith("ffn."):
            out[key[len("ffn.") :]] = value
        elif key.startswith("norm"):
            out[key] = value
    return out


def torch_layer(init: dict, state: dict) -> nn.TransformerEncoderLayer:
    """PyTorch's layer in float64 with the probe's weights. Training mode with dropout 0.0 keeps
    it off the fused fast path (the same numbers, but one code path on every machine)."""
    layer = nn.TransformerEncoderLayer(
        init["d_model"],
        init["num_heads"],
        init["d_ff"],
        dropout=0.0,
        activation=init.get("activation", "relu"),
        batch_first=True,
        norm_first=init.get("norm_first", True),
        dtype=torch.float64,
    )
    layer.load_state_dict({k: v.double() for k, v in to_torch_names(state).items()})
    return layer.train()


def torch_masks(mask: torch.Tensor | None, T: int) -> dict:
    """True = may attend (this series) -> PyTorch's True = blocked, as src_mask or key padding."""
    if mask is None:
        return {}
    if mask.dim() == 2:
        return {"src_mask": ~mask}
    return {"src_key_padding_mask": ~mask.reshape(mask.shape[0], T)}


# --------------------------------------------------------------------------- attention


def random_state(gen, d_model: int, bias: bool = True) -> dict:
    """Weights for q_proj, k_proj, v_proj, out_proj (a little larger than nn.Linear's init,
    so that the attention is not nearly uniform and the mistakes show)."""
    state = {}
    for name in PROJECTIONS:
        state[f"{name}.weight"] = randn(d_model, d_model, generator=gen) * (
            1.5 / math.sqrt(d_model)
        )
        if bias:
            state[f"{name}.bias"] = randn(d_model, generator=gen) * 0.1
    return state


def reference_mha(state: dict, num_heads: int, query, key, value, mask=None):
    """nn.MultiheadAttention(batch_first=True) in float64 with the learner's weights copied in
    (in_proj_weight is q_proj, k_proj and v_proj stacked). Returns (out, per-head weights)."""
    d_model = query.size(-1)
    bias = "q_proj.bias" in state
    ref = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True).double().eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([state[f"{n}.weight"] for n in PROJECTIONS[:3]]))
        ref.out_proj.weight.copy_(state["out_proj.weight"])
        if bias:
            ref.in_proj_bias.copy_(torch.cat([state[f"{n}.bias"] for n in PROJECTIONS[:3]]))
            ref.out_proj.bias.copy_(state["out_proj.bias"])
        attn_mask = None
        if mask is not None:
            # nn.MultiheadAttention: True = *blocked*, one (T_q, T_k) mask per batch x head
            B, T_q, T_k = query.size(0), query.size(1), key.size(1)
            full = mask.expand(B, num_heads, T_q, T_k)
            attn_mask = ~full.reshape(B * num_heads, T_q, T_k)
        out, weights = ref(
            query.double(),
            key.double(),
            value.double(),
            attn_mask=attn_mask,
            need_weights=True,
            average_attn_weights=False,
        )
    return out, weights


def weight_mistakes(variant, mask) -> list[tuple]:
    """(variant, message, code) for the mistakes the attention weights show."""
    mistakes = [
        (
            variant(1, split_transpose=False),
            "the heads are split without the transpose: view the projection as (B, T, H, d_head) "
            "and then .transpose(1, 2) to (B, H, T, d_head); a direct view as (B, H, T, d_head) "
            "mixes positions and features.",
            "split_without_transpose",
        ),
        (
            variant(1, scale="d_model"),
            "the scores are divided by sqrt(d_model): each head's dot products have d_head "
            "terms, so scale by sqrt(d_head) = sqrt(d_model // num_heads).",
            "scale_by_d_model",
        ),
        (
            variant(1, scale="none"),
            "the scores are not scaled: divide by sqrt(d_head).",
            "no_scale",
        ),
        (
            variant(1, dim=-2),
            "softmax is taken over the queries (dim=-2): use dim=-1, the keys.",
            "softmax_over_queries",
        ),
        (
            variant(1, causal=True),
            "a causal mask is applied although none was asked for (as nanoGPT's "
            "CausalSelfAttention always does): apply only the `mask` argument, so that the "
            "same module serves encoders (no mask) and decoders (a causal mask passed in).",
            "always_causal",
        ),
    ]
    if mask is not None:
        inverted = (
            "the mask is inverted: True means *may attend* in this series (pass it on to "
            "scaled_dot_product_attention as it is); nn.MultiheadAttention's attn_mask is "
            "the one with True = blocked."
        )
        mistakes += [
            (variant(1, mask_mode="inverted"), inverted, "mask_inverted"),
            (variant(1, mask_mode="inverted", fill=-1e9), inverted, "mask_inverted"),
            (
                variant(1, mask_mode="ignored"),
                "the mask is ignored: pass `mask` on to the attention.",
                "mask_ignored",
            ),
            (
                variant(1, mask_mode="after"),
                "the mask is applied after softmax: fill the scores with -inf before softmax.",
                "mask_after_softmax",
            ),
        ]
    return mistakes


# --------------------------------------------------------------------------- LayerNorm


def variance_mistakes(x, w, b, eps: float) -> list[tuple]:
    """The variance and eps mistakes, alone and combined (the Annotated Transformer's LayerNorm
    divides by x.std() + eps: unbiased, eps outside the square root, eps=1e-6 by default)."""
    out = []
    for unbiased in (True, False):
        for inside in (True, False):  # inside first: eps=1e-6 inside is not "outside"
            for e in (eps, 1e-6, 0.0):
                if not unbiased and inside and e == eps:
                    continue  # the right one
                if unbiased and not inside:
                    msg, code = (
                        "you divide by x.std() + eps, as the Annotated Transformer does: std() "
                        "is the *unbiased* standard deviation (divides by d_model - 1) and eps "
                        "sits outside the square root. Use (x - mean) / sqrt(var + eps) with "
                        "var = x.var(-1, unbiased=False, keepdim=True).",
                        "std_plus_eps",
                    )
                elif unbiased:
                    msg, code = (
                        "the variance is unbiased (divides by d_model - 1): LayerNorm uses the "
                        "biased variance, x.var(dim=-1, unbiased=False, keepdim=True) (mean of "
                        "squared deviations).",
                        "unbiased_variance",
                    )
                elif not inside:
                    msg, code = (
                        "eps is added outside the square root: divide by sqrt(var + eps), not "
                        "sqrt(var) + eps (this case uses eps=1.0 to tell them apart).",
                        "eps_outside_sqrt",
                    )
                elif e == 0.0:
                    msg, code = (
                        "eps is missing: divide by sqrt(var + eps), with the module's eps.",
                        "no_eps",
                    )
                else:
                    msg, code = (
                        f"the module's eps (here {eps:g}) is not used, a small fixed one is: "
                        "store self.eps = eps in __init__ and use it.",
                        "eps_ignored",
                    )
                if e != eps and (unbiased or not inside):
                    msg += f" Also use the module's eps (here {eps:g})."

                def variant(u=unbiased, i=inside, e=e):
                    return layer_norm64(x, w, b, e, unbiased=u, eps_inside=i)

                out.append((variant, msg, code))
    return out
