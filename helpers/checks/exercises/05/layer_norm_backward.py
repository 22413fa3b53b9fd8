"""Notebook 05, part 3: LayerNorm's backward pass by hand (``05.layer_norm_backward``).

The three gradients are compared with a float64 formula (``lnb64``) that autograd's gradients
of ``F.layer_norm`` agree with (tests/checks/test_nb05_backward.py); each known mistake is the
same formula with one switch flipped. Autograd is switched off while the learner's code runs,
so every probe is a "props" probe (the plain call, then the inputs on device "meta"): no
gradient case is made from it, which would need autograd."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    named,
    randn,
    register,
)
from ...probes import AUTOGRAD, NORM_OPS
from ...properties import PropertyMixin
from ...run.relations import props


def lnb64(
    x: torch.Tensor,
    weight: torch.Tensor,
    grad_y: torch.Tensor,
    eps: float,
    *,
    mean_of_grad: bool = True,
    xhat_term: bool = True,
    unbiased: bool = False,
    eps_inside: bool = True,
    use_weight: bool = True,
    reduce: str = "sum",
    weight_from: str = "x_hat",
    divide: bool = True,
    summed: tuple[str, ...] = (),
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(grad_x, grad_weight, grad_bias) of y = x_hat * weight + bias in float64; the keywords
    switch on one known mistake each (``summed``: the correction terms, "g" and/or "x_hat",
    whose mean over the features is a sum)."""
    x, w, gy = x.double(), weight.double(), grad_y.double()
    d = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=unbiased, keepdim=True)
    std = (var + eps).sqrt() if eps_inside else var.sqrt() + eps
    x_hat = (x - mu) / std
    g = gy * w if use_weight else gy
    gx = g

    def mean(t, term):
        return t.sum(-1, keepdim=True) if term in summed else t.mean(-1, keepdim=True)

    if mean_of_grad:
        gx = gx - mean(g, "g")
    if xhat_term:
        gx = gx - x_hat * mean(g * x_hat, "x_hat")
    gx = gx / std if divide else gx
    by_weight = {"x_hat": x_hat, "x": x}[weight_from]
    rows_w, rows_b = (gy * by_weight).reshape(-1, d), gy.reshape(-1, d)
    if reduce == "sum":
        return gx, rows_w.sum(0), rows_b.sum(0)
    return gx, rows_w.mean(0), rows_b.mean(0)


LNB_MISTAKES = {
    "no_mean_terms": "grad_x is grad_y * weight / std alone: both terms that come from the "
    "mean and the variance are missing. Every x_i moves the row's mean and variance, so with "
    "g = grad_y * weight: grad_x = (g - mean(g) - x_hat * mean(g * x_hat)) / std, the means "
    "over the last dim.",
    "no_mean_of_grad": "the term - mean(g) (g = grad_y * weight, the mean over the last dim) "
    "is missing from grad_x: it comes from the mean mu, which every x_i moves. A check: adding "
    "a constant to a row of x changes nothing, so each row of grad_x must sum to 0.",
    "no_xhat_term": "grad_x is what it would be without the term - x_hat * mean(g * x_hat) "
    "(g = grad_y * weight): that term is left out, or the x_hat in it is 0 (x - mean with the "
    "wrong mean). It comes from the variance, which every x_i moves. A check: scaling a row of "
    "x changes (almost) nothing, so (grad_x * x_hat).sum(-1) must be about 0.",
    "sums_not_means": "grad_x is what it would be with {terms} summed over the last dim where "
    "the mean belongs (d = {d} times too large): grad_x = (g - mean(g) - x_hat * mean(g * "
    "x_hat)) / std, g = grad_y * weight, the means over the d features (mu and the variance "
    "are means, so each x_i moves them by 1/d).",
    "unbiased": "the variance is the unbiased one (divided by d - 1): the forward pass uses the "
    "biased variance, divided by d (x.var(dim=-1, unbiased=False)), so its backward must too.",
    "std_plus_eps": "std is x.std() + eps: x.std() is the unbiased one (divided by d - 1) and "
    "eps sits outside the square root. As in the forward pass: std = torch.sqrt(x.var(dim=-1, "
    "unbiased=False, keepdim=True) + eps).",
    "eps_outside": "eps is outside the square root: std = sqrt(var + eps), as in the forward "
    "pass (the check uses eps=1.0 to see it).",
    "eps_ignored": "the `eps` argument is ignored (the case passes eps={eps:g}): use it in "
    "std = sqrt(var + eps).",
    "no_weight": "grad_x ignores the weight: the gradient that reaches x_hat is "
    "g = grad_y * weight (y = x_hat * weight + bias), and grad_x is built from g.",
    "not_divided": "grad_x is not divided by std: x reaches y only through (x - mu) / std, so "
    "every term of grad_x carries the factor 1 / std, grad_x = (g - mean(g) - x_hat * "
    "mean(g * x_hat)) / std.",
    "params_swapped": "grad_weight and grad_bias are swapped: the weight multiplies x_hat, so "
    "grad_weight sums grad_y * x_hat; the bias is added as is, so grad_bias sums grad_y.",
    "grad_weight_mean": "{what} is a mean over the tokens: it is a sum. Every token uses the "
    "same weight and bias, so every token adds its share of the gradient.",
    "grad_weight_from_x": "grad_weight is the sum of grad_y * x: the weight multiplies x_hat, "
    "so grad_weight = (grad_y * x_hat) summed over every dim but the last.",
}


@register
class LayerNormBackwardCheck(PropertyMixin, Exercise):
    id = "05.layer_norm_backward"
    title = "LayerNorm's backward pass by hand"
    points = 2.0
    forbid = (
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm.forward",
        *AUTOGRAD,
        "aten.native_layer_norm_backward",
        *NORM_OPS,
    )

    def probes(self, gen):
        for name, shape, scale, shift, eps, dtype, ones in [  # the large eps first
            ("x (2, 3, 4) * 0.5, eps=1.0 (a large eps)", (2, 3, 4), 0.5, 0.0, 1.0,
             torch.float32, False),
            ("x (4, 6) (one token per row), the default eps", (4, 6), 2.0, 1.0, None,
             torch.float32, False),
            ("x (2, 5, 8), weight all ones", (2, 5, 8), 1.0, 0.0, None, torch.float32, True),
            ("x (2, 3, 2, 5) (four dims)", (2, 3, 2, 5), 3.0, -2.0, 1e-5, torch.float32, False),
            ("x (3, 7), float64", (3, 7), 1.0, 0.5, 1e-5, torch.float64, False),
        ]:  # fmt: skip
            d = shape[-1]
            x = scale * randn(*shape, generator=gen, dtype=dtype) + shift
            weight = torch.ones(d, dtype=dtype)
            if not ones:
                weight = 1.0 + 0.5 * randn(d, generator=gen, dtype=dtype)
            grad_y = randn(*shape, generator=gen, dtype=dtype)
            kwargs = {} if eps is None else {"eps": eps}
            yield props(Probe(name, (x, weight, grad_y), kwargs), "meta")

    def judge_value(self, probe, out):
        x, weight, grad_y = probe.args
        eps = probe.kwargs.get("eps", 1e-5)
        d = x.shape[-1]
        got = expect_tuple(out, 3, "(grad_x, grad_weight, grad_bias)")
        names = ("grad_x", "grad_weight", "grad_bias")
        for t, what in zip(got, names):
            expect_tensor(t, what)
        gx, gw, gb = got
        expect_like(gx, x.shape, x.dtype, "grad_x")
        for t, what in ((gw, "grad_weight"), (gb, "grad_bias")):
            if tuple(t.shape) != (d,):
                raise Fail(
                    f"{what} has shape {fmt_shape(t.shape)}, expected {fmt_shape((d,))}, one "
                    "value per feature, like the weight: sum over every dim but the last (all "
                    "the tokens of the batch), grad_y.reshape(-1, d).sum(0).",
                    "grad_params_wrong_dims",
                )
            expect_like(t, (d,), x.dtype, what)
        for t, what in zip(got, names):
            expect_finite(t, what)

        def v(i, **kw):
            return lambda: lnb64(x, weight, grad_y, eps, **kw)[i]

        mistakes = named(
            LNB_MISTAKES,
            {"eps": eps},
            no_mean_terms=v(0, mean_of_grad=False, xhat_term=False),
            no_mean_of_grad=v(0, mean_of_grad=False),
            no_xhat_term=v(0, xhat_term=False),
            unbiased=v(0, unbiased=True),
            std_plus_eps=v(0, unbiased=True, eps_inside=False),
            eps_outside=v(0, eps_inside=False),
            eps_ignored=lambda: lnb64(x, weight, grad_y, 1e-5)[0] if eps != 1e-5 else None,
            no_weight=v(0, use_weight=False),
            not_divided=v(0, divide=False),
        )
        for summed, terms in [
            (("g", "x_hat"), "both correction terms, mean(g) and mean(g * x_hat),"),
            (("g",), "the term mean(g)"),
            (("x_hat",), "the term mean(g * x_hat)"),
        ]:
            mistakes += named(
                LNB_MISTAKES, {"terms": terms, "d": d}, sums_not_means=v(0, summed=summed)
            )
        ref = lnb64(x, weight, grad_y, eps)
        atol = 1e-4 if x.dtype == torch.float32 else None
        expect_close(gx, ref[0], "grad_x", atol=atol, mistakes=mistakes)
        for i, (g, what) in enumerate([(gw, "grad_weight"), (gb, "grad_bias")], 1):
            params = named(
                LNB_MISTAKES,
                {"what": what},
                grad_weight_mean=v(i, reduce="mean"),
                grad_weight_from_x=v(1, weight_from="x"),
                params_swapped=[v(2), v(1)],
            )
            expect_close(g, ref[i], what, atol=atol, mistakes=params)
