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
    randn,
    register,
)
from ...mistakes import variants
from ...probes import SOFTMAX_OPS, ambiguous_bool, same_error
from ...properties import STABLE


def softmax64(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Reference: float64, max-shifted. The catalogue's wrong programs are edits of it
    (exercises/01/catalogue.py)."""
    x = x.double()
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)


@register
class SoftmaxCheck(Exercise):
    id = "01.softmax"
    title = "numerically stable softmax"
    points = 2.0
    reference64 = staticmethod(softmax64)
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
                code = "sum_without_keepdim"
            else:
                code = "max_without_keepdim"
            return Fail(self.mistakes[code].message + "\n   " + error, code)
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
                raise self.fail("global_max")
            if not torch.isfinite((x - x.mean(dim=dim, keepdim=True)).exp()).all():
                raise self.fail("shift_not_max")
            e = x.exp()  # the unshifted formula, in the input's dtype: where does it overflow?
            unshifted = e / e.sum(dim=dim, keepdim=True)
            if e.isinf().any() and torch.equal(unshifted.isfinite(), got.cpu().isfinite()):
                raise self.fail("no_shift")
            raise self.fail("not_finite")
        other = [d for d in range(x.dim()) if d != dim % x.dim()]
        ignored = self.mistakes["dim_ignored"]
        expect_close(
            got,
            softmax64(x, dim),
            mistakes=variants(self.mistakes, softmax64, (x, dim))
            + [(lambda d=d: softmax64(x, d), ignored.say(d=d), ignored.code) for d in other],
            hint=STABLE["softmax"],
            explain=lambda got: self.faults(got, x, dim),
        )

    def faults(self, got: torch.Tensor, x: torch.Tensor, dim: int) -> Fail | None:
        """The property of every softmax that ``got`` breaks: positive values, summing to 1
        along ``dim``, proportional to exp(x) (log p - log p_j = x - x_j)."""
        g, x = got.double(), x.double()
        if (g < 0).any():
            return self.fail("not_positive")
        sums = g.sum(dim)
        if not close(sums, torch.ones_like(sums), 1e-4, 1e-4):
            return self.fail("not_normalized")
        lg = g.clamp(min=1e-300).log()
        if not close(lg - lg.amax(dim, keepdim=True), x - x.amax(dim, keepdim=True), 1e-3, 1e-3):
            return self.fail("not_proportional_to_exp")
        return None
