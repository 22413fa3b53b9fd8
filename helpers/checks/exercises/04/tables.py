"""Notebook 04: what the checks of the table and of the module that adds it share (the
table's known mistakes and faults)."""

from __future__ import annotations

import torch

from ...framework import (
    Fail,
    close,
    fmt_values,
    named,
)
from ...references import sinusoidal64

TABLE_MISTAKES = {
    "sin_cos_swapped": "sin and cos are swapped: even columns (0, 2, 4, ...) hold sin, odd "
    "columns hold cos.",
    "exponent_column_index": "the exponent is wrong: you used the column index j in "
    "10000^(j/d_model); columns 2i and 2i+1 share one frequency, 10000^(2i/d_model) with "
    "i = j // 2 (torch.arange(0, d_model, 2)).",
    "exponent_without_2": "the exponent is wrong: 10000^(i/d_model) misses the factor 2; use "
    "10000^(2i/d_model), i.e. torch.arange(0, d_model, 2) / d_model.",
    "exponent_sign": "the exponent has the wrong sign: positions are *divided* by "
    "10000^(2i/d_model) (frequencies go down with i), not multiplied.",
    "halves_not_interleaved": "sin and cos each fill one half of the columns (one the first "
    "half, the other the second half): this series interleaves them (sin on even columns, cos "
    "on odd).",
    "positions_from_1": "the positions start at 1: the first row is position 0 (sin 0 = 0, "
    "cos 0 = 1), torch.arange(max_len).",
}


def table_mistakes(max_len: int, d_model: int, wrap=lambda pe: pe) -> list:
    """(variant, message, code) for the common mistakes in building the table."""

    def v(**kw):
        return lambda: wrap(sinusoidal64(max_len, d_model, **kw))

    return named(
        TABLE_MISTAKES,
        sin_cos_swapped=v(swap=True),
        exponent_column_index=v(exponent="j/d"),
        exponent_without_2=v(exponent="i/d"),
        exponent_sign=v(sign=+1.0),
        halves_not_interleaved=[v(layout="halves"), v(layout="halves", swap=True)],
        positions_from_1=lambda: wrap(sinusoidal64(max_len + 1, d_model)[1:]),
    ) + [
        (
            v(base=base),
            f"the base is {base:g}: the angles are pos / 10000^(2i/d_model), base 10000.",
            "wrong_base",
        )
        for base in (1000.0, 100.0, 100000.0)
    ]


def check_sign(
    got: torch.Tensor, ref: torch.Tensor, max_len: int, d_model: int, wrap=lambda pe: pe
) -> None:
    """With a positive exponent the high-frequency angles are huge and float32 sin is noise there,
    so recognise that mistake on the first four columns, where the angles are still exact."""
    cols = slice(0, min(4, d_model))
    if close(got[..., cols], ref[..., cols], 1e-4, 1e-4):
        return
    variant = wrap(sinusoidal64(max_len, d_model, sign=+1.0))
    if close(got[..., cols], variant[..., cols], 1e-3, 1e-3) and not close(got, ref, 1e-3, 1e-3):
        raise Fail(*table_mistakes(max_len, d_model)[3][1:])


def table_faults(pe: torch.Tensor) -> Fail | None:
    """The property of every sinusoidal table that ``pe`` (max_len, d_model) breaks: columns 2i
    and 2i+1 are the sin and cos of one angle, 0 at position 0, that turns by
    w_i = 10000^(-2i/d_model) per position."""
    pe = pe.double()
    s, c = pe[:, 0::2], pe[:, 1::2]
    n, d = c.shape[1], pe.shape[1]
    if not close(s[:, :n] ** 2 + c**2, torch.ones_like(c), 1e-4, 0):
        return Fail(
            "columns 2i and 2i+1 are not the sin and the cos of one angle (sin² + cos² = 1 "
            "fails): PE[pos, 2i] = sin(pos * w_i) and PE[pos, 2i+1] = cos(pos * w_i).",
            "not_sin_cos_pair",
        )
    if not close(pe[0], torch.arange(d) % 2, 1e-4, 0):
        return Fail(
            f"the first row (position 0) begins {fmt_values(pe[0, :4])}, not (sin 0, cos 0, "
            "...) = (0, 1, 0, 1, ...): every angle is 0 at position 0. The row of position p "
            "holds sin and cos of the angles p * w_i, and the positions run from 0, "
            "torch.arange(max_len).",
            "first_row",
        )
    w = torch.atan2(s[1, :n], c[1]) if len(pe) > 1 else torch.zeros(0)
    want = 10000.0 ** (-2 * torch.arange(len(w), dtype=torch.float64) / d)
    bad = (~torch.isclose(w, want, rtol=1e-3, atol=1e-6)).nonzero()
    if len(bad):
        i = int(bad[0])
        return Fail(
            f"the frequencies are wrong: columns {2 * i} and {2 * i + 1} turn by {w[i]:.4g} "
            f"radians per position, expected 10000^(-{2 * i}/{d}) = {want[i]:.4g} (w_i = "
            "10000^(-2i/d_model), 2i = torch.arange(0, d_model, 2)).",
            "wrong_frequency",
        )
    return None


def table_atol(max_len: int) -> float:
    # float32 angles pos / 10000^(2i/d) carry a relative error ~6e-8, i.e. ~6e-8 * pos absolute
    return 1e-5 + 3e-7 * max_len
