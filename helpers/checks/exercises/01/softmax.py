"""01.softmax: numerically stable softmax (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_like,
    expect_tensor,
    named,
    randn,
    register,
)
from ...probes import SOFTMAX_OPS, ambiguous_bool, same_error
from ...properties import STABLE

SUM_KEEPDIM = (
    "the sums lose the `dim` axis (sum without keepdim=True), so they no longer line up with "
    "the values they divide: use e.sum(dim=dim, keepdim=True)."
)


MAX_KEEPDIM = (
    "the max along `dim` loses that axis (max without keepdim=True), so it no longer lines up "
    "with the values it is subtracted from: use x.amax(dim=dim, keepdim=True) (or "
    "x.max(dim=dim, keepdim=True).values)."
)


SOFTMAX_MISTAKES = {
    "not_normalized": "the values do not sum to 1: divide by the sum of the exponentials along "
    "`dim`.",
    "sum_without_keepdim": SUM_KEEPDIM,
    "sum_over_all": "the whole tensor sums to 1: sum along `dim` with keepdim=True, not over "
    "everything.",
    "log_softmax": "this is log-softmax: return the probabilities.",
    "max_without_keepdim": MAX_KEEPDIM,
    "max_last_dim": "the max is taken along another dim (the last one) than `dim`: each value "
    "of a slice along `dim` then has a different number subtracted, and the result is no "
    "longer a softmax. Subtract x.amax(dim=dim, keepdim=True).",
}


def softmax64(x: torch.Tensor, dim: int) -> torch.Tensor:
    """Reference: float64, max-shifted."""
    x = x.double()
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)


def softmax_faults(got: torch.Tensor, x: torch.Tensor, dim: int) -> Fail | None:
    """The property of every softmax that ``got`` breaks: positive values, summing to 1 along
    ``dim``, proportional to exp(x) (log p - log p_j = x - x_j)."""
    g, x = got.double(), x.double()
    if (g < 0).any():
        return Fail(
            "some values are negative: softmax's values are exp(x - max) / sum, all positive. "
            "Exponentiate the shifted values before dividing.",
            "not_positive",
        )
    sums = g.sum(dim)
    if not close(sums, torch.ones_like(sums), 1e-4, 1e-4):
        return Fail(SOFTMAX_MISTAKES["not_normalized"], "not_normalized")
    lg = g.clamp(min=1e-300).log()
    if not close(lg - lg.amax(dim, keepdim=True), x - x.amax(dim, keepdim=True), 1e-3, 1e-3):
        return Fail(
            "the values sum to 1 but are not proportional to exp(x): softmax(x) = exp(x - max) / "
            "sum(exp(x - max)), so p_i / p_j = exp(x_i - x_j).",
            "not_proportional_to_exp",
        )
    return None


def _shifted(x64: torch.Tensor, shift: torch.Tensor, dim: int) -> torch.Tensor:
    """exp(x - shift) normalised along ``dim``: the softmax's formula with another shift."""
    e = (x64 - shift).exp()
    return e / e.sum(dim=dim, keepdim=True)


@register
class SoftmaxCheck(Exercise):
    id = "01.softmax"
    title = "numerically stable softmax"
    points = 2.0
    errors = (
        (
            ("Dimension out of range",),
            "your code uses a dim the input does not have: reduce along the `dim` argument (x "
            "may be 1-D, dim=-1 by default).",
            "wrong_dim",
        ),
    )
    forbid = (
        *(f"{m}.{f}" for m in ("torch", "torch.nn.functional", "torch.Tensor", "torch.special")
          for f in ("softmax", "log_softmax")),
        "torch.logsumexp",
        "torch.Tensor.logsumexp",
        *SOFTMAX_OPS,
        "aten.logsumexp",
    )  # fmt: skip

    def probes(self, gen):
        yield Probe("x = [1.0, 2.0, 3.0]", args=(torch.tensor([1.0, 2.0, 3.0]),))
        yield Probe(
            "x = [1000, 1001, 999] (large values)", args=(torch.tensor([1000.0, 1001.0, 999.0]),)
        )
        yield Probe("x = [0, 1000] (values far apart)", args=(torch.tensor([0.0, 1000.0]),))
        yield Probe("random (4, 7), dim=-1", args=(randn(4, 7, generator=gen),), kwargs={"dim": -1})
        yield Probe(
            "random (2, 3, 5), dim=1", args=(randn(2, 3, 5, generator=gen),), kwargs={"dim": 1}
        )
        yield Probe(
            "rows far apart [[0, 1, 2], [1000, 1001, 1002]]",
            args=(torch.tensor([[0.0, 1.0, 2.0], [1000.0, 1001.0, 1002.0]]),),
        )
        yield Probe(
            "random (3, 6) * 30, float64, dim=0",
            args=(30 * randn(3, 6, dtype=torch.float64, generator=gen),),
            kwargs={"dim": 0},
        )

    def explain_error(self, probe, error):
        x, dim = probe.args[0], probe.kwargs.get("dim", -1)
        if same_error(error, lambda: x / x.sum(dim=dim)):
            line = error.rsplit("\n", 1)[-1]  # the learner's line that raised
            if "sum" in line or "/" in line:  # dividing by the sums, else subtracting the max
                return Fail(SUM_KEEPDIM + "\n   " + error, "sum_without_keepdim")
            return Fail(MAX_KEEPDIM + "\n   " + error, "max_without_keepdim")
        return super().explain_error(probe, error) or ambiguous_bool(error)

    def judge(self, probe, out):
        (x,) = probe.args
        dim = probe.kwargs.get("dim", -1)
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        if not torch.isfinite(got).all():
            if (
                (x.amax(dim=dim) > 100).any()
                and (x.amax() - x.amin(dim=dim) > 100).any()
                and torch.isfinite(softmax64(x, dim)).all()
                and x.dim() > 1
                and (x.amax(dim=dim) < 500).any()
            ):
                raise Fail(
                    "the output has NaN: subtract the max of each slice along `dim` "
                    "(x.amax(dim=dim, keepdim=True)), not the max of the whole tensor: "
                    "a row far below the global max underflows to 0/0.",
                    "global_max",
                )
            if not torch.isfinite((x - x.mean(dim=dim, keepdim=True)).exp()).all():
                raise Fail(
                    "the output has NaN or inf: after your shift an exponent is still huge "
                    "(subtracting the mean or the min of [0, 1000] leaves exp(500) or "
                    "exp(1000), which overflow). "
                    "Subtract the max along `dim`: then every exponent is <= 0.",
                    "shift_not_max",
                )
            e = x.exp()  # the unshifted formula, in the input's dtype: where does it overflow?
            unshifted = e / e.sum(dim=dim, keepdim=True)
            if e.isinf().any() and torch.equal(unshifted.isfinite(), got.cpu().isfinite()):
                raise Fail(
                    "the output has NaN or inf: exp(1000) overflows. Subtract the max along "
                    "`dim` (keepdim=True) before exponentiating; softmax does not change.",
                    "no_shift",
                )
            raise Fail(
                "the output has NaN or inf where every softmax value is finite (between 0 "
                "and 1). Look for the step that makes it: an exp that overflows (subtract the "
                "max along `dim` first), a log of a negative number, a division by 0.",
                "not_finite",
            )
        ref = softmax64(x, dim)
        x64 = x.double()
        e = (x64 - x64.amax(dim=dim, keepdim=True)).exp()
        other = [d for d in range(x.dim()) if d != dim % x.dim()]
        expect_close(
            got,
            ref,
            mistakes=named(
                SOFTMAX_MISTAKES,
                not_normalized=e,
                sum_without_keepdim=lambda: ref / ref.sum(dim=dim),
                sum_over_all=[
                    lambda: x64.exp() / x64.exp().sum(),
                    e / e.sum(),
                    lambda: (x64 - x64.amax()).exp() / (x64 - x64.amax()).exp().sum(),
                ],
                log_softmax=[  # the log of the answer, and its stable form (log(0) is -inf)
                    lambda: ref.log(),
                    lambda: x64 - x64.amax(dim=dim, keepdim=True) - e.sum(dim, keepdim=True).log(),
                ],
                max_without_keepdim=lambda: (
                    softmax64(x - x64.amax(dim), dim) if x.dim() > 1 else None
                ),
                max_last_dim=lambda: _shifted(x64, x64.amax(-1, keepdim=True), dim),
            )
            + [
                (
                    lambda d=d: softmax64(x, d),
                    f"softmax was taken over dim {d}: use the `dim` argument.",
                    "dim_ignored",
                )
                for d in other
            ],
            hint=STABLE["softmax"],
            explain=lambda got: softmax_faults(got, x, dim),
        )
