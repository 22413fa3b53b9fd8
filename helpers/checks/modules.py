"""Module checks shared by several notebooks: the module-info verdict, parameter names and
shapes under the contract's names, random states, PyTorch's reference layers loaded with
them (the contract's names -> PyTorch's), and the named mistakes of attention weights and of
LayerNorm's variance, which any later module built on them can show too; the attention maps of
06's encoder and 09's ViT."""

from __future__ import annotations

import torch

from .framework import Fail, expect_close, expect_finite, expect_like, expect_tensor, named
from .references import layer_norm64


def judge_module_info(probe, out, name: str, judge) -> None:
    """``out`` is ``module_info``'s dict when the class built a module; else Fail."""
    keys = {"parameters", "buffers", "children"}
    if not isinstance(out, dict) or set(out) - {"attributes", "inner", "state_dict"} != keys:
        raise Fail(
            f"{name}(...) should build a torch.nn.Module: subclass nn.Module and call "
            "super().__init__() first in __init__.",
            "not_a_module",
        )
    judge(probe, out)


def expect_bias(info: dict, bias: bool, given: bool) -> None:
    """The projections have biases exactly when ``bias`` (``given``: the case passed it, else
    it is the signature's default, True)."""
    if any(n.endswith(".bias") for n in info["parameters"]) != bias:
        said, fix = f"with bias={bias}", "pass bias=bias to each nn.Linear."
        if not given:  # the default: the signature's, or the Linear's
            said, fix = "with bias left out", "the signature's default is bias=True, " + fix
        raise Fail(
            f"{said} the projections must {'' if bias else 'not '}have a bias: {fix}",
            "bias_ignored",
        )


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


MAPS_MISTAKES = {
    "maps_without_norm1": "{what} is taken on the un-normalized input: a pre-LN block attends "
    "over norm1(x), so call layer.self_attn(layer.norm1(x)).",
    "maps_pre_ln_on_post_ln": "{what} is taken on norm1(x), as in a pre-LN block: these blocks "
    "are post-LN (norm_first=False), their attention sees x itself. Use h = layer.norm1(x) if "
    "layer.norm_first else x.",
    "maps_on_embedding": "{what} is computed on the embedding: run each block, x = layer(x), "
    "before taking the next layer's map.",
}


def judge_maps(out, refs: list, shape: tuple, dtype, variants: dict) -> None:
    """``attention_maps``' output (06's encoder, 09's ViT): one (B, H, T, T) map per layer,
    each close to ``refs[i]``; ``variants``: {code of MAPS_MISTAKES: the wrong maps (a list)}."""
    B, H, T, _ = shape
    if isinstance(out, torch.Tensor) and out.dim() == 5:
        out = list(out.unbind(0))
    out = list(out) if isinstance(out, tuple) else out
    if not isinstance(out, list) or len(out) != len(refs):
        got = f"a list of {len(out)}" if isinstance(out, list) else type(out).__name__
        raise Fail(
            f"attention_maps should return a list with one (B, H, T, T) tensor per layer "
            f"({len(refs)} here), got {got}"
            + (" (did you forget `return`?)." if out is None else "."),
            "maps_not_a_list" if not isinstance(out, list) else "maps_count",
        )
    for i, (got, ref) in enumerate(zip(out, refs)):
        what = f"the map of layer {i}"
        got = expect_tensor(got, what)
        if tuple(got.shape) == (B, T, T):
            raise Fail(
                f"{what} has shape {tuple(got.shape)}: keep the heads, (B, H, T, T) = "
                f"{shape} (MultiHeadAttention returns them per head; do not average).",
                "maps_averaged",
            )
        expect_like(got, shape, dtype, what)
        expect_finite(got, what)
        mistakes = named(MAPS_MISTAKES, {"what": what}, **{c: m[i] for c, m in variants.items()})
        expect_close(got, ref, what, atol=1e-4, mistakes=mistakes)
