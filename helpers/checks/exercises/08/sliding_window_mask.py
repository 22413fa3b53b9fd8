"""08.sliding_window_mask: a sliding-window mask (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_equal,
    expect_tensor,
    fmt_shape,
    register,
)
from ...mistakes import variants
from ...probes import DeviceProbeMixin
from .reference import mask_cells


def window64(T: int, window: int, causal=False) -> torch.Tensor:
    """The reference: (T, T), True where |i - j| <= window, and j <= i when ``causal`` (the
    catalogue's programs edit it)."""
    i = torch.arange(T)[:, None]  # query
    j = torch.arange(T)[None, :]  # key
    m = (i - j).abs() <= window
    if causal:
        m = m & (j <= i)
    return m


@register
class SlidingWindowMaskCheck(DeviceProbeMixin, Exercise):
    id = "08.sliding_window_mask"
    title = "a sliding-window mask"
    points = 1.0
    axes = ("key", "query")
    reference64 = staticmethod(window64)

    def cases(self, gen):
        for T, window, causal, why in (
            # window 3 first: at 1 or 2, `< window` and `<= window // 2` give the same mask,
            # and the message would name the first for the second
            (8, 3, False, ""), (6, 1, None, ""), (7, 2, True, ""),
            (5, 0, None, " (each token sees itself only)"),
            (4, 10, None, " (wider than the sequence)"), (9, 3, True, ""), (1, 0, True, ""),
        ):  # fmt: skip
            name = f"T = {T}, window = {window}" + (", causal=True" if causal else "") + why
            kwargs = {} if causal is None else {"causal": causal}
            yield Probe(name, runner="device", args=(T, window), kwargs=kwargs)

    def judge_value(self, probe, out):
        T, window = probe.args
        causal = probe.kwargs.get("causal", False)
        got = expect_tensor(out, "the mask")
        if tuple(got.shape) != (T, T):
            raise self.fail("wrong_shape", shape=fmt_shape(got.shape), T=T)
        if got.dtype != torch.bool:
            raise self.fail("not_bool", dtype=got.dtype)
        ref = window64(T, window, causal)
        flag = "causal=False" if "causal" in probe.kwargs else "causal is left out (False)"
        mistakes = variants(self.mistakes, window64, (T, window, causal), fields={"flag": flag})
        try:
            expect_equal(got, ref, mistakes, "")
        except Fail as fail:
            raise fail if fail.code else mask_cells(got, ref, window, causal) from None
