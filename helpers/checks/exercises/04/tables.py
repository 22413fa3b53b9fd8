"""Notebook 04: what the checks of the table and of the module that adds it share (the
table's known mistakes, exercises/04/catalogue.py, and its faults)."""

from __future__ import annotations

import torch

from ...framework import Fail, close, fmt_values
from ...mistakes import ARROW, program, variants
from ...references import sinusoidal64
from .catalogue import TABLE


def table_mistakes(mistakes: dict, args: tuple, codes=tuple(TABLE)) -> list:
    """(variant, message, code) of the catalogue's ``codes`` on sinusoidal64(*args); the base a
    wrong_base edit ("10000.0 -> 100.0") uses fills in its message."""

    def fields(spec):
        wrong_base = isinstance(spec, str) and spec.startswith("10000.0")
        return {"base": float(spec.partition(ARROW)[2])} if wrong_base else {}

    return variants(mistakes, sinusoidal64, args, fields=fields, codes=codes)


def check_sign(mistakes: dict, got: torch.Tensor, ref: torch.Tensor, args: tuple) -> None:
    """With a positive exponent the high-frequency angles are huge and float32 sin is noise there,
    so recognise that mistake on the first four columns, where the angles are still exact."""
    cols = slice(0, min(4, args[1]))
    if close(got[..., cols], ref[..., cols], 1e-4, 1e-4):
        return
    sign = mistakes["exponent_sign"]
    variant = program(sinusoidal64, sign.wrong[0])(*args)
    if close(got[..., cols], variant[..., cols], 1e-3, 1e-3) and not close(got, ref, 1e-3, 1e-3):
        raise Fail(sign.message, sign.code)


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
