"""04.sinusoidal_positional_encoding: the sinusoidal position table (its check)."""

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
    register,
)
from ...references import sinusoidal64
from .tables import check_sign, table_atol, table_faults, table_mistakes


@register
class SinusoidalPositionalEncodingCheck(Exercise):
    id = "04.sinusoidal_positional_encoding"
    title = "the sinusoidal position table"
    points = 2.0
    reference64 = staticmethod(sinusoidal64)

    def probes(self, gen):
        yield Probe("max_len=3, d_model=4", args=(3, 4), cpu_only=True)
        yield Probe("max_len=50, d_model=16", args=(50, 16), cpu_only=True)
        yield Probe("max_len=7, d_model=2", args=(7, 2), cpu_only=True)
        yield Probe("max_len=128, d_model=64", args=(128, 64), cpu_only=True)
        yield Probe("max_len=1000, d_model=10", args=(1000, 10), cpu_only=True)

    def judge(self, probe, out):
        max_len, d_model = probe.args
        got = expect_tensor(out)
        if tuple(got.shape) == (d_model, max_len) and d_model != max_len:
            raise Fail(
                f"the table has shape {tuple(got.shape)}: expected (max_len, d_model) = "
                f"{(max_len, d_model)}, one row per position.",
                "transposed",
            )
        expect_like(
            got,
            (max_len, d_model),
            torch.float32,
            "the table",
            "make the table in float32, torch's default: torch.arange(..., dtype=torch.float32)",
        )
        expect_finite(got, "the table")
        ref = sinusoidal64(max_len, d_model)
        check_sign(self.mistakes, got, ref, probe.args)
        mistakes = table_mistakes(self.mistakes, probe.args)
        atol = table_atol(max_len)
        expect_close(got, ref, "the table", atol=atol, rtol=1e-4, mistakes=mistakes,
                     explain=table_faults)  # fmt: skip
