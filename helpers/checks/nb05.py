"""Notebook 05: LayerNorm from scratch, the feed-forward sublayer, the pre-LN / post-LN block.

Module checks load the same weights into the learner's module and into PyTorch's module
(``nn.LayerNorm``, ``nn.TransformerEncoderLayer(batch_first=True, dropout=0.0)``) and compare
outputs. The known wrong variants are computed by :func:`block64`, a float64 formula of the
block with switches for each mistake.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .framework import (
    Exercise,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    randn,
)
from .modules import (
    block_names,
    block_state,
    expect_names,
    judge_module_info,
    linear_state,
    torch_layer,
    torch_masks,
)
from .references import PROJECTIONS, attn64, ffn64, layer_norm64

# --------------------------------------------------------------------------- LayerNorm


class LayerNormCheck(Exercise):
    id = "05.LayerNorm"
    title = "LayerNorm from scratch"
    points = 2.0
    kind = "module"
    forbid = (
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm.forward",
    )

    def probes(self, gen):
        def state(d):
            return {
                "weight": 1.0 + 0.5 * randn(d, generator=gen),
                "bias": 0.5 * randn(d, generator=gen),
            }

        yield Probe("module_info: LayerNorm(6)", runner="module_info", init={"d_model": 6})
        # first, so that eps inside / outside the square root can be told apart
        yield Probe(
            "LayerNorm(4, eps=1.0) (a large eps), x (2, 3, 4) * 0.5",
            runner="module",
            init={"d_model": 4, "eps": 1.0},
            state=state(4),
            args=(0.5 * randn(2, 3, 4, generator=gen),),
        )
        yield Probe(
            "LayerNorm(6) as built (weight 1, bias 0), x (2, 5, 6)",
            runner="module",
            init={"d_model": 6},
            args=(3 * randn(2, 5, 6, generator=gen) + 1,),
        )
        yield Probe(
            "LayerNorm(8) with random weight and bias, x (3, 4, 8)",
            runner="module",
            init={"d_model": 8},
            state=state(8),
            args=(2 * randn(3, 4, 8, generator=gen) - 1,),
        )
        yield Probe(
            "LayerNorm(5), x (4, 5) (no time axis)",
            runner="module",
            init={"d_model": 5},
            state=state(5),
            args=(randn(4, 5, generator=gen),),
        )
        yield Probe(
            "LayerNorm(7), x (2, 6, 7), float64",
            runner="module",
            init={"d_model": 7},
            state={k: v.double() for k, v in state(7).items()},
            args=(randn(2, 6, 7, dtype=torch.float64, generator=gen) * 4,),
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "LayerNorm", self.judge_info)
        (x,) = probe.args
        d = probe.init["d_model"]
        eps = probe.init.get("eps", 1e-5)
        st = probe.state or {"weight": torch.ones(d), "bias": torch.zeros(d)}
        w, b = st["weight"], st["bias"]
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(got)
        ref = F.layer_norm(
            x.double(), (d,), w.double(), b.double(), eps
        )  # the built-in, in float64

        def v(**kw):
            return lambda: layer_norm64(x, w, b, eps, **kw)

        other_axes = []
        if x.dim() == 3:
            other_axes = [
                (
                    v(dims=(1,)),
                    "normalized over the time axis (dim 1): LayerNorm normalizes each "
                    "token's d_model features, i.e. over the last dim (dim=-1).",
                ),
                (
                    v(dims=(1, 2)),
                    "normalized over the last two dims (T and d_model together): "
                    "normalize each token on its own, over dim=-1 only.",
                ),
            ]
        other_axes.append(
            (
                v(dims=(0,)),
                "normalized over the batch (dim 0), like BatchNorm: "
                "LayerNorm normalizes over the last dim (dim=-1).",
            )
        )
        expect_close(
            got,
            ref,
            atol=1e-4 if x.dtype == torch.float32 else None,
            mistakes=[
                (
                    v(unbiased=True, eps_inside=False),
                    "you divide by x.std() + eps: std() is the *unbiased* standard deviation "
                    "(divides by "
                    "d_model - 1) and eps sits outside the square root. Use "
                    "(x - mean) / sqrt(var + eps) with var = x.var(-1, unbiased=False, "
                    "keepdim=True).",
                ),
                (
                    v(unbiased=True),
                    "the variance is unbiased (divides by d_model - 1): LayerNorm uses the biased "
                    "variance, x.var(dim=-1, unbiased=False, keepdim=True) (mean of squared "
                    "deviations).",
                ),
                (
                    v(eps_inside=False),
                    "eps is added outside the square root: divide by sqrt(var + eps), not "
                    "sqrt(var) + eps "
                    "(this case uses eps=1.0 to tell them apart).",
                ),
                (
                    lambda: layer_norm64(x, w, b, 0.0),
                    "eps is missing: divide by sqrt(var + eps), with the module's eps.",
                ),
                *other_axes,
                (
                    lambda: layer_norm64(x, None, None, eps),
                    "weight and bias are not applied: return x_hat * weight + bias.",
                ),
                (
                    lambda: layer_norm64(x, None, None, eps) * b.double() + w.double(),
                    "weight and bias are swapped: return x_hat * weight + bias.",
                ),
                (
                    lambda: layer_norm64(x, None, None, eps) * 0 + b.double(),
                    "the output is the bias alone: is weight initialized to zeros? Use "
                    "torch.ones(d_model).",
                ),
            ],
        )

    def judge_info(self, probe, info):
        d = probe.init["d_model"]
        hint = (
            "Create self.weight = nn.Parameter(torch.ones(d_model)) and self.bias = "
            "nn.Parameter(torch.zeros(d_model)) (the names nn.LayerNorm uses)."
        )
        expect_names(
            info, {"weight": [d], "bias": [d]}, "LayerNorm", {"weight": hint, "bias": hint}
        )


# --------------------------------------------------------------------------- FeedForward


class FeedForwardCheck(Exercise):
    id = "05.FeedForward"
    title = "the position-wise feed-forward sublayer"
    points = 2.0
    kind = "module"

    def probes(self, gen):
        def state(d, d_ff):
            return {
                **linear_state(gen, d, d_ff, "linear1."),
                **linear_state(gen, d_ff, d, "linear2."),
            }

        yield Probe(
            "module_info: FeedForward(8, 32)", runner="module_info", init={"d_model": 8, "d_ff": 32}
        )
        yield Probe(
            "FeedForward(8, 32), relu, x (2, 5, 8)",
            runner="module",
            init={"d_model": 8, "d_ff": 32},
            state=state(8, 32),
            args=(randn(2, 5, 8, generator=gen),),
        )
        yield Probe(
            "FeedForward(6, 10, activation='gelu'), x (3, 4, 6)",
            runner="module",
            init={"d_model": 6, "d_ff": 10, "activation": "gelu"},
            state=state(6, 10),
            args=(2 * randn(3, 4, 6, generator=gen),),
        )
        yield Probe(
            "FeedForward(4, 12, dropout=0.1) in eval mode, x (2, 3, 4)",
            runner="module",
            init={"d_model": 4, "d_ff": 12, "dropout": 0.1},
            state=state(4, 12),
            args=(randn(2, 3, 4, generator=gen),),
        )
        yield Probe(
            "FeedForward(5, 9, activation='relu'), x (2, 7, 5)",
            runner="module",
            init={"d_model": 5, "d_ff": 9, "activation": "relu"},
            state=state(5, 9),
            args=(randn(2, 7, 5, generator=gen),),
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "FeedForward", self.judge_info)
        (x,) = probe.args
        act = probe.init.get("activation", "relu")
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(got)
        st = probe.state
        other = "gelu" if act == "relu" else "relu"
        expect_close(
            got,
            ffn64(st, x, act),
            atol=1e-4 if x.dtype == torch.float32 else None,
            mistakes=[
                (
                    lambda: ffn64(st, x, other),
                    f"this is the {other} network: the `activation` argument is ignored "
                    f"(activation={act!r} here).",
                ),
                (
                    lambda: ffn64(st, x, "gelu_tanh"),
                    "this GELU is the tanh approximation: use the exact one, F.gelu(h) "
                    "(approximate="
                    "'none'), as nn.TransformerEncoderLayer does.",
                ),
                (
                    lambda: F.linear(
                        F.linear(
                            x.double(), st["linear1.weight"].double(), st["linear1.bias"].double()
                        ),
                        st["linear2.weight"].double(),
                        st["linear2.bias"].double(),
                    ),
                    "there is no activation between linear1 and linear2: two linear layers in a "
                    "row are "
                    "just one linear map.",
                ),
                (
                    lambda: ffn64(st, x, act, act_after=True),
                    "the activation is also applied after linear2: the output of linear2 is "
                    "returned "
                    "as is (it joins the residual stream).",
                ),
                (
                    lambda: x.double() + ffn64(st, x, act),
                    "the output includes x (a residual): FeedForward returns "
                    "linear2(act(linear1(x))); "
                    "the block adds the residual.",
                ),
            ],
        )

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        expect_names(
            info,
            {
                "linear1.weight": [d_ff, d],
                "linear1.bias": [d_ff],
                "linear2.weight": [d, d_ff],
                "linear2.bias": [d],
            },
            "FeedForward",
            {
                "linear1.weight": "Create self.linear1 = nn.Linear(d_model, d_ff) and "
                "self.linear2 = "
                "nn.Linear(d_ff, d_model) (the names nn.TransformerEncoderLayer uses).",
                "linear1.weight.shape": "linear1 maps d_model -> d_ff: nn.Linear(d_model, d_ff).",
                "linear2.weight.shape": "linear2 maps d_ff -> d_model: nn.Linear(d_ff, d_model).",
            },
        )


# --------------------------------------------------------------------------- the block


def block64(
    state: dict,
    x: torch.Tensor,
    num_heads: int,
    *,
    norm_first: bool = True,
    activation: str = "relu",
    mask: torch.Tensor | None = None,
    residual: str = "x",
    swap_norms: bool = False,
    final_norm: bool = False,
) -> torch.Tensor:
    """The encoder block in float64, with switches for the known mistakes.

    residual: "x" (right), "none", "attn_only" / "ffn_only" (the other one missing), "normed"
    (pre-LN with the residual taken from the normalized input).
    """
    x = x.double()
    n1, n2 = ("norm2", "norm1") if swap_norms else ("norm1", "norm2")

    def norm(name, h):
        return layer_norm64(h, state[f"{name}.weight"], state[f"{name}.bias"], 1e-5)

    def attn(h):
        return attn64(state, "self_attn.", h, h, num_heads, mask)

    def ffn(h):
        return ffn64(state, h, activation, prefix="ffn.")

    keep_attn = residual in ("x", "normed", "attn_only")
    keep_ffn = residual in ("x", "normed", "ffn_only")
    if norm_first:
        h = norm(n1, x)
        x = (h if residual == "normed" else x) * keep_attn + attn(h)
        h = norm(n2, x)
        x = (h if residual == "normed" else x) * keep_ffn + ffn(h)
        if final_norm:
            x = norm(n2, x)
    else:
        x = norm(n1, x * keep_attn + attn(x))
        x = norm(n2, x * keep_ffn + ffn(x))
    return x


class TransformerEncoderBlockCheck(Exercise):
    id = "05.TransformerEncoderBlock"
    title = "the transformer encoder block, pre-LN and post-LN"
    points = 3.0
    kind = "module"

    def probes(self, gen):
        def state(d, d_ff):
            return block_state(gen, d, d_ff, norm_scale=(0.4, 0.3))

        def padding(B, T):
            keep = torch.ones(B, T, dtype=torch.bool)
            for b in range(B):
                keep[b, T - 1 - b % 2 :] = False  # the last one or two keys are padding
            return keep[:, None, None, :]  # (B, 1, 1, T)

        small = {"d_model": 8, "num_heads": 2, "d_ff": 16}
        yield Probe(
            "module_info: TransformerEncoderBlock(8, 2, 16)", runner="module_info", init=small
        )
        yield Probe(
            "pre-LN (norm_first=True), d_model=8, 2 heads, x (2, 5, 8)",
            runner="module",
            init={**small, "norm_first": True},
            state=state(8, 16),
            args=(randn(2, 5, 8, generator=gen),),
        )
        yield Probe(
            "post-LN (norm_first=False), d_model=8, 2 heads, x (2, 5, 8)",
            runner="module",
            init={**small, "norm_first": False},
            state=state(8, 16),
            args=(randn(2, 5, 8, generator=gen),),
        )
        yield Probe(
            "default norm_first (True: pre-LN), x (1, 4, 8)",
            runner="module",
            init=small,
            state=state(8, 16),
            args=(randn(1, 4, 8, generator=gen),),
        )
        yield Probe(
            "pre-LN with a padding mask (B, 1, 1, T), x (2, 6, 8)",
            runner="module",
            init={**small, "norm_first": True},
            state=state(8, 16),
            args=(randn(2, 6, 8, generator=gen),),
            kwargs={"mask": padding(2, 6)},
        )
        yield Probe(
            "post-LN with a causal mask (T, T), x (2, 5, 8)",
            runner="module",
            init={**small, "norm_first": False},
            state=state(8, 16),
            args=(randn(2, 5, 8, generator=gen),),
            kwargs={"mask": torch.ones(5, 5, dtype=torch.bool).tril()},
        )
        yield Probe(
            "pre-LN, gelu, d_model=12, 3 heads, d_ff=20, x (3, 4, 12)",
            runner="module",
            init={
                "d_model": 12,
                "num_heads": 3,
                "d_ff": 20,
                "norm_first": True,
                "activation": "gelu",
            },
            state=state(12, 20),
            args=(randn(3, 4, 12, generator=gen),),
        )
        yield Probe(
            "post-LN with a padding mask, dropout=0.1 in eval mode, x (2, 7, 8)",
            runner="module",
            init={**small, "norm_first": False, "dropout": 0.1},
            state=state(8, 16),
            args=(randn(2, 7, 8, generator=gen),),
            kwargs={"mask": padding(2, 7)},
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerEncoderBlock", self.judge_info)
        (x,) = probe.args
        mask = probe.kwargs.get("mask")
        init, st = probe.init, probe.state
        H, act = init["num_heads"], init.get("activation", "relu")
        norm_first = init.get("norm_first", True)
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(
            got,
            hint="With a mask, NaN comes from a row with no key allowed: the mask "
            "means True = may attend, pass it to self_attn unchanged.",
        )
        with torch.no_grad():
            ref = torch_layer(init, st)(x.double(), **torch_masks(mask, x.shape[1]))

        def v(**kw):
            args = {"norm_first": norm_first, "activation": act, "mask": mask, **kw}
            return lambda: block64(st, x, H, **args)

        flip = (
            (
                "norm_first is ignored: with norm_first=False the block is post-LN, "
                "x = norm1(x + attn(x)), then x = norm2(x + ffn(x))."
            )
            if not norm_first
            else (
                "norm_first is ignored: with norm_first=True the block is pre-LN, "
                "x = x + attn(norm1(x)), then x = x + ffn(norm2(x))."
            )
        )
        mistakes = [
            (v(norm_first=not norm_first), flip),
            (
                v(residual="none"),
                "the residual connections are missing: each sublayer's output is "
                "added to its input, x = x + sublayer(...).",
            ),
            (
                v(residual="ffn_only"),
                "the residual around self-attention is missing: "
                + ("x = x + attn(norm1(x))." if norm_first else "x = norm1(x + attn(x))."),
            ),
            (
                v(residual="attn_only"),
                "the residual around the feed-forward sublayer is missing: "
                + ("x = x + ffn(norm2(x))." if norm_first else "x = norm2(x + ffn(x))."),
            ),
            (
                v(swap_norms=True),
                "norm1 and norm2 are swapped: norm1 belongs to the attention "
                "sublayer, norm2 to the feed-forward sublayer.",
            ),
        ]
        if norm_first:
            mistakes += [
                (
                    v(residual="normed"),
                    "the residual is taken from the normalized input: add the "
                    "raw x, x = x + attn(norm1(x)), not h + attn(h) with h = norm1(x).",
                ),
                (
                    v(final_norm=True),
                    "the output is normalized at the end: a pre-LN block returns "
                    "x + ffn(norm2(x)) as is (the final norm belongs to the "
                    "encoder, notebook 06).",
                ),
            ]
        if mask is not None:
            mistakes += [
                (v(mask=None), "the mask is ignored: pass it on, self_attn(h, mask=mask)."),
                (
                    v(mask=~mask),
                    "the mask is inverted: in this series True means may attend "
                    "(the opposite of nn.MultiheadAttention's attn_mask).",
                ),
            ]
        mistakes.append(
            (
                v(activation="gelu" if act == "relu" else "relu"),
                f"the `activation` argument does not reach the feed-forward sublayer "
                f"(activation={act!r} here).",
            )
        )
        expect_close(got, ref, atol=1e-4 if x.dtype == torch.float32 else None, mistakes=mistakes)

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        expect_names(
            info,
            block_names(d, d_ff),
            "TransformerEncoderBlock",
            {
                **{
                    f"self_attn.{p}.weight": "Use self.self_attn = MultiHeadAttention(d_model, "
                    "num_heads, dropout) from notebook 03."
                    for p in PROJECTIONS
                },
                "ffn.linear1.weight": "Use self.ffn = FeedForward(d_model, d_ff, dropout, "
                "activation).",
                "norm1.weight": "Use self.norm1 = LayerNorm(d_model) and self.norm2 = "
                "LayerNorm(d_model).",
                "norm2.weight": "Use self.norm1 = LayerNorm(d_model) and self.norm2 = "
                "LayerNorm(d_model).",
            },
        )
