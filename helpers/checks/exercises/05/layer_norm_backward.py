"""Notebook 05, part 3: LayerNorm's backward pass by hand (``05.layer_norm_backward``).

The three gradients are compared with a float64 formula (``lnb64``) that autograd's gradients
of ``F.layer_norm`` agree with (tests/checks/test_nb05_backward.py); each known mistake is an
edit of that formula (exercises/05/catalogue.py). Autograd is switched off while the learner's
code runs, so every probe is a "props" probe (the plain call, then the inputs on device
"meta"): no gradient case is made from it, which would need autograd."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    expect_tuple,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import program, variants
from ...probes import AUTOGRAD, NORM_OPS
from ...properties import PropertyMixin
from ...run.relations import props


def lnb64(x: torch.Tensor, weight: torch.Tensor, grad_y: torch.Tensor, eps: float = 1e-5):
    """(grad_x, grad_weight, grad_bias) of y = x_hat * weight + bias in float64. The
    catalogue's wrong programs are edits of it (exercises/05/catalogue.py)."""
    x, w, gy = x.double(), weight.double(), grad_y.double()
    d = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    std = (var + eps).sqrt()
    x_hat = (x - mu) / std
    g = gy * w
    gx = (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)) / std
    rows_w, rows_b = (gy * x_hat).reshape(-1, d), gy.reshape(-1, d)
    return gx, rows_w.sum(0), rows_b.sum(0)


#: the wording of each of sums_not_means' programs, in the catalogue's order
SUMMED = (
    "both correction terms, mean(g) and mean(g * x_hat),",
    "the term mean(g)",
    "the term mean(g * x_hat)",
)
GRAD_X = (
    "no_mean_terms",
    "no_mean_of_grad",
    "no_xhat_term",
    "unbiased",
    "std_plus_eps",
    "eps_outside",
    "eps_ignored",
    "no_weight",
    "not_divided",
)


@register
class LayerNormBackwardCheck(PropertyMixin, Exercise):
    id = "05.layer_norm_backward"
    title = "LayerNorm's backward pass by hand"
    points = 2.0
    reference64 = staticmethod(lnb64)
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
                shape, expected = fmt_shape(t.shape), fmt_shape((d,))
                raise self.fail("grad_params_wrong_dims", what=what, shape=shape, expected=expected)
            expect_like(t, (d,), x.dtype, what)
        for t, what in zip(got, names):
            expect_finite(t, what)

        args = (x, weight, grad_y, eps)

        def wrong(codes, pick=0, **fields):
            return variants(
                self.mistakes, lnb64, args, pick=lambda o: o[pick], fields=fields, codes=codes
            )

        mistakes = wrong(GRAD_X, eps=eps)
        sums = self.mistakes["sums_not_means"]
        mistakes += [
            (lambda s=spec: program(lnb64, s)(*args)[0], sums.say(terms=terms, d=d), sums.code)
            for spec, terms in zip(sums.wrong, SUMMED)
        ]
        ref = lnb64(x, weight, grad_y, eps)
        atol = 1e-4 if x.dtype == torch.float32 else None
        expect_close(gx, ref[0], "grad_x", atol=atol, mistakes=mistakes)
        for i, (g, what) in enumerate([(gw, "grad_weight"), (gb, "grad_bias")], 1):
            params = (
                wrong(("grad_weight_mean",), i, what=what)
                + wrong(("grad_weight_from_x",), 1)
                + wrong(("params_swapped",), i)
            )
            expect_close(g, ref[i], what, atol=atol, mistakes=params)
