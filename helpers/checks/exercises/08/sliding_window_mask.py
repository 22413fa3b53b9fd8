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
    named,
    register,
)
from ...probes import DeviceProbeMixin
from .reference import mask_cells


def window64(T: int, window: int, causal=False, *, strict=False, upper=False) -> torch.Tensor:
    """True where |i - j| <= window (< with ``strict``), and j <= i when ``causal``."""
    i = torch.arange(T)[:, None]  # query
    j = torch.arange(T)[None, :]  # key
    dist = (i - j).abs()
    m = dist < window if strict else dist <= window
    if causal:
        m = m & ((j >= i) if upper else (j <= i))
    return m


WINDOW_MISTAKES = {
    "inverted": "the mask is inverted: in this series True means may attend (True inside the "
    "window), the opposite of nn.MultiheadAttention's attn_mask.",
    "strict_window": "the window is off by one: a key at distance exactly `window` is inside "
    "it, use abs(i - j) <= window, not < window.",
    "window_too_wide": "the window is off by one: it reaches `window + 1` tokens away; use "
    "abs(i - j) <= window.",
    "causal_ignored": "the `causal` flag is ignored: with causal=True a query i may only see "
    "keys j <= i (and within the window).",
    "causal_keeps_future": "the causal part keeps the future (j >= i): keep keys j <= i, i.e. "
    "the lower triangle (tril).",
    "diagonal_only": "the causal window keeps only each token itself (j == i): with "
    "causal=True keep the keys j <= i with i - j <= window; (j <= i) & (j >= i) leaves the "
    "diagonal only.",
    "causal_when_not_asked": "the mask is causal although {flag}: without the flag the "
    "window is symmetric, abs(i - j) <= window.",
    "no_abs": "the distance has no abs(): i - j <= window keeps every key after the query. Use "
    "abs(i - j) <= window.",
}


@register
class SlidingWindowMaskCheck(DeviceProbeMixin, Exercise):
    id = "08.sliding_window_mask"
    title = "a sliding-window mask"
    points = 1.0
    axes = ("key", "query")

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
            raise Fail(
                f"the mask has shape {fmt_shape(got.shape)}, expected ({T}, {T}).", "wrong_shape"
            )
        if got.dtype != torch.bool:
            raise Fail(
                f"the mask has dtype {got.dtype}: return a boolean tensor, True = may attend.",
                "not_bool",
            )
        ref = window64(T, window, causal)
        when_not_asked = WINDOW_MISTAKES["causal_when_not_asked"]
        i, j = torch.arange(T)[:, None], torch.arange(T)
        flag = "causal=False" if "causal" in probe.kwargs else "causal is left out (False)"
        mistakes = named(
            {**WINDOW_MISTAKES, "causal_when_not_asked": when_not_asked.format(flag=flag)},
            inverted=~ref,
            strict_window=window64(T, window, causal, strict=True),
            window_too_wide=window64(T, window + 1, causal),
            causal_ignored=window64(T, window, False) if causal else [],
            causal_keeps_future=window64(T, window, True, upper=True) if causal else [],
            diagonal_only=torch.eye(T, dtype=torch.bool) if causal else [],
            causal_when_not_asked=[] if causal else window64(T, window, True),
            no_abs=[] if causal else i - j <= window,  # with causal=True, j <= i needs no abs()
        )
        try:
            expect_equal(got, ref, mistakes, "")
        except Fail as fail:
            raise fail if fail.code else mask_cells(got, ref, window, causal) from None
