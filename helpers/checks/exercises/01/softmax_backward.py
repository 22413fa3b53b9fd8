"""Notebook 01, the stretch: the softmax's backward pass written by hand (its vector-Jacobian
product, from the output y), compared with a float64 formula and named by its textbook slips."""

from __future__ import annotations

import dataclasses

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import AUTOGRAD, ambiguous_bool, same_error, too_large

#: autograd, and softmax's own backward kernel: the exercise is the backward pass autograd runs
FORBID = (*AUTOGRAD, "torch._softmax_backward_data", "aten._softmax_backward_data")


def softmax64(x: torch.Tensor, dim: int) -> torch.Tensor:
    x = x.double()
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)


def softmax_backward64(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Reference: the vector-Jacobian product of the softmax at output y, float64. The
    catalogue's wrong programs are edits of it (exercises/01/catalogue.py)."""
    y, g = y.double(), grad_y.double()
    return y * (g - (g * y).sum(dim=dim, keepdim=True))


def _case(name, gen, shape, dim=None, dtype=torch.float32, spread=1.0):
    y = softmax64(spread * randn(*shape, generator=gen), -1 if dim is None else dim).to(dtype)
    grad_y = randn(*shape, generator=gen, dtype=dtype)
    return Probe(name, args=(y, grad_y), kwargs={} if dim is None else {"dim": dim})


@register
class SoftmaxBackwardCheck(Exercise):
    id = "01.softmax_backward"
    title = "the softmax's backward pass, by hand"
    points = 2.0
    forbid = FORBID
    reference64 = staticmethod(softmax_backward64)
    errors = (
        (
            ("Dimension out of range",),
            "your code uses a dim the input does not have: sum along the `dim` argument (y may "
            "be 1-D, dim=-1 by default).",
            "wrong_dim",
        ),
    )

    def probes(self, gen):
        y = softmax64(torch.tensor([1.0, 2.0, 3.0]), -1).float()
        yield Probe("y = softmax([1, 2, 3]), grad_y = [1, 0, 0]",
                    args=(y, torch.tensor([1.0, 0.0, 0.0])))  # fmt: skip
        yield _case("random (4, 7), dim=-1", gen, (4, 7), dim=-1)
        yield _case("random (2, 3, 5), dim=1", gen, (2, 3, 5), dim=1)
        yield _case("float64 (3, 6), dim=0", gen, (3, 6), dim=0, dtype=torch.float64)
        yield _case("nearly one-hot y (softmax of 30 * x), (4, 5)", gen, (4, 5), spread=30.0)
        # the text: "without building the (T, T) Jacobian"; (2, 64): a Jacobian per row is 8192
        # numbers, the answer's own steps 128
        wide = _case("(2, 64), dim=-1, the size of every tensor made measured", gen, (2, 64))
        yield dataclasses.replace(wide, runner="sized")

    def explain_error(self, probe, error):
        y, g = probe.args
        dim = probe.kwargs.get("dim", -1)
        if same_error(error, lambda: y * (g - (g * y).sum(dim=dim))):
            mistake = self.mistakes["sum_without_keepdim"]
            return Fail(mistake.message + "\n   " + error, mistake.code)
        return super().explain_error(probe, error) or ambiguous_bool(error)

    def judge(self, probe, out):
        y, g = probe.args
        dim = probe.kwargs.get("dim", -1)
        if probe.runner == "sized":
            self.judge(dataclasses.replace(probe, runner="call"), out.get("out"))
            n = y.shape[dim]
            message = self.mistakes["built_jacobian"].say(n=n)
            return too_large(out, n * n, message, "built_jacobian")
        got = expect_tensor(out, "grad_x")
        n = y.shape[dim]
        jac_shape = (*y.shape, n)
        if tuple(got.shape) in (jac_shape, (*y.shape[:-1], n, n)) and got.shape != y.shape:
            raise self.fail(
                "returned_jacobian", shape=fmt_shape(got.shape), y_shape=fmt_shape(y.shape)
            )
        expect_like(got, y.shape, y.dtype, "grad_x")
        expect_finite(got, "grad_x")
        y64, g64 = y.double(), g.double()
        other = [d for d in range(y.dim()) if d != dim % y.dim()]
        default = "" if "dim" in probe.kwargs else ", and this case leaves `dim` at its default, -1"
        ignored = self.mistakes["dim_ignored"]
        mistakes = variants(self.mistakes, softmax_backward64, (y, g, dim)) + [
            (
                lambda d=d: y64 * (g64 - (g64 * y64).sum(dim=d, keepdim=True)),
                ignored.say(d=d, default=default),
                ignored.code,
            )
            for d in other
        ]
        expect_close(
            got,
            softmax_backward64(y, g, dim),
            "grad_x",
            mistakes=mistakes,
            explain=lambda got: self.faults(got, y, dim),
        )

    def faults(self, got: torch.Tensor, y: torch.Tensor, dim: int) -> Fail | None:
        """The property every softmax gradient has: it sums to 0 along ``dim`` (adding a
        constant to every x changes no weight, so the gradient has no component along that
        direction)."""
        sums = got.double().sum(dim)
        scale = got.double().abs().amax().clamp(min=1e-12)
        if not close(sums / scale, torch.zeros_like(sums), 1e-4, 0):
            return self.fail("not_summing_to_zero")
        return None
