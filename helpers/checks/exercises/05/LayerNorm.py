"""05.LayerNorm: LayerNorm from scratch (its check)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    randn,
    register,
)
from ...mistakes import variants
from ...modules import expect_names, judge_module_info, variance_mistakes
from ...probes import NORM_OPS
from ...properties import STABLE
from ...references import layer_norm64

#: the tolerance of the +3000 case in float32: a correct LayerNorm is off by at most 3.1e-3
#: there (3000 seeds), E[x²] - E[x]² by at least 0.48
OFFSET_ATOL = 2e-2


LN_DIMS = {
    (1,): "the time axis (dim 1)",
    (-2, -1): "the last two dims (T and d_model together)",
    (0,): "the batch (dim 0), like BatchNorm",
}


def ln64(x, weight, bias, eps=1e-5):
    """The reference, float64. The catalogue's wrong programs are edits of it
    (exercises/05/catalogue.py)."""
    x = x.double()
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    y = (x - mean) / (var + eps).sqrt()
    return y * weight.double() + bias.double()


def ln_as_learner(fn):
    """A learner's LayerNorm whose forward is ``fn`` (ln64 or one of its wrong programs)."""

    class LayerNorm(nn.Module):
        def __init__(self, d_model, eps=1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d_model))
            self.bias = nn.Parameter(torch.zeros(d_model))
            self.eps = eps

        def forward(self, x):
            return fn(x, self.weight, self.bias, self.eps).to(x.dtype)

    return LayerNorm


@register
class LayerNormCheck(Exercise):
    id = "05.LayerNorm"
    title = "LayerNorm from scratch"
    points = 2.0
    kind = "module"
    reference64 = staticmethod(ln64)
    learner = staticmethod(ln_as_learner)
    forbid = (
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm.forward",
        "torch.nn.functional.rms_norm",  # a LayerNorm of x - mean(x) (torch >= 2.4)
        "torch.rms_norm",
        *NORM_OPS,
    )

    def probes(self, gen):
        yield Probe("module_info: LayerNorm(6)", runner="module_info", init={"d_model": 6})
        for name, init, shape, scale, shift in [  # the large eps first: eps inside / outside sqrt
            ("LayerNorm(4, eps=1.0) (a large eps), x (2, 3, 4) * 0.5",
             {"eps": 1.0}, (2, 3, 4), 0.5, 0),
            ("LayerNorm(6) as built (weight 1, bias 0), x (2, 5, 6)", {}, (2, 5, 6), 3, 1),
            ("LayerNorm(8) with random weight and bias, x (3, 4, 8)", {}, (3, 4, 8), 2, -1),
            ("LayerNorm(5), x (4, 5) (no time axis)", {}, (4, 5), 1, 0),
            ("LayerNorm(8), x (2, 4, 8) + 3000 (a large offset, float32)", {}, (2, 4, 8), 1, 3000),
            ("LayerNorm(7), x (2, 6, 7), float64", {"dtype": torch.float64}, (2, 6, 7), 4, 0),
        ]:  # fmt: skip
            d, dtype = shape[-1], init.pop("dtype", torch.float32)
            st = {
                "weight": 1.0 + 0.5 * randn(d, generator=gen),
                "bias": 0.5 * randn(d, generator=gen),
            }
            yield Probe(
                name,
                (scale * randn(*shape, generator=gen, dtype=dtype) + shift,),
                runner="module",
                init={"d_model": d, **init},
                state=None if "built" in name else {k: v.to(dtype) for k, v in st.items()},
                info={"offset": shift == 3000},
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
        ref = F.layer_norm(x.double(), (d,), w.double(), b.double(), eps)  # in float64
        if probe.info.get("offset") and not close(got, ref, OFFSET_ATOL, 1e-3):
            raise self.fail("variance_cancellation", hint=STABLE["variance"])
        expect_finite(got)

        def v(dims):
            return lambda: layer_norm64(x, w, b, eps, dims=dims)

        mistakes = variance_mistakes(x, w, b, eps) + variants(self.mistakes, ln64, (x, w, b, eps))
        if probe.state is None:  # as built: the init and the forward are not told apart
            built = ("weight_bias_swapped", "weight_zeros")
            mistakes = [
                (m[0], self.mistakes[m[-1] + "_built"].message, *m[2:]) if m[-1] in built else m
                for m in mistakes
            ]
        wrong_dim = self.mistakes["wrong_dim"]
        mistakes += [
            (v(dims=dims), wrong_dim.say(dims=words), "wrong_dim")
            for dims, words in LN_DIMS.items()
            if all(-x.dim() <= d < x.dim() for d in dims)
            and {d % x.dim() for d in dims} != {x.dim() - 1}
        ]
        atol = (
            (OFFSET_ATOL if probe.info.get("offset") else 1e-4)
            if x.dtype == torch.float32
            else None
        )
        expect_close(
            got,
            ref,
            atol=atol,
            mistakes=mistakes,
            explain=lambda got: layer_norm_faults(got, x, w, b, eps),
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


def layer_norm_faults(got, x, w, b, eps: float) -> Fail | None:
    """The step of x_hat * weight + bias, x_hat = (x - mean) / sqrt(var + eps), that is wrong,
    from what every right output has: per feature, an affine map of x_hat; and
    (out - bias) / weight has mean 0 over the last dim."""
    g, x = got.double(), x.double()
    mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
    xh = ((x - mean) / (var + eps).sqrt()).reshape(-1, x.shape[-1])  # (rows, d)
    rows = g.reshape(xh.shape)
    xc, gc = xh - xh.mean(0), rows - rows.mean(0)
    a = (xc * gc).sum(0) / (xc * xc).sum(0).clamp(min=1e-12)
    # a = 0: that feature does not depend on x_hat at all, so x_hat may well be wrong
    if len(xh) > 2 and (a.abs() > 1e-6).all() and close(rows, xc * a + rows.mean(0), 1e-4, 1e-3):
        if close(g, -xh.reshape(g.shape) * w.double() + b.double(), 1e-4, 1e-3):
            return Fail(
                "the output is -x_hat * weight + bias: x_hat's sign is flipped ((mean - x) "
                "where x - mean belongs), or the weight enters negated.",
                "negated",
            )
        return Fail(
            "each feature of the output is x_hat = (x - mean) / sqrt(var + eps) times a "
            "number plus a number, but not x_hat * weight + bias: weight and bias are applied "
            "wrongly (or x_hat is scaled): return x_hat * self.weight + self.bias.",
            "affine_wrong",
        )
    if (w.abs() < 1e-6).any():
        return None
    mine = (g - b.double()) / w.double()
    signs = bool((mine * (x - mean) >= -1e-9).all())
    if not (signs or close(mine.mean(-1), 0 * var[..., 0], 1e-4, 1e-3)):
        return Fail(
            "(out - bias) / weight does not have mean 0 over the last dim: x_hat subtracts "
            "each row's mean, x - x.mean(dim=-1, keepdim=True).",
            "not_centered",
        )
    spread = float(mine.std(-1, unbiased=False).mean() / xh.std(-1, unbiased=False).mean())
    seen = "has the signs of x - mean" if signs else "has mean 0 over the last dim"
    return Fail(
        f"(out - bias) / weight {seen}, but its spread is {spread:.3g} times x_hat's: "
        "x_hat = (x - mean) / torch.sqrt(var + eps), var = ((x - mean) ** 2).mean(dim=-1, "
        "keepdim=True).",
        "wrong_normalization",
    )
