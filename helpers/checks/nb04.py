"""Notebook 04: the sinusoidal positional-encoding table and the module that adds it."""

from __future__ import annotations

import math

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    close,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_values,
    named,
    randint,
    randn,
    register,
)
from .modules import judge_module_info
from .probes import P_IGNORED, judge_dropout, train_mode_parts
from .properties import PropertyMixin
from .questions import Question
from .references import sinusoidal64
from .run.modules import fixed_dropout
from .run.relations import props

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


PE_MISTAKES = {
    "dropout_before_adding_pe": "dropout is applied to x before pe is added: apply it to the "
    "sum, self.dropout(x + self.pe[:T]).",
    "dropout_on_pe": "dropout is applied to pe alone: apply it to the sum, self.dropout(x + "
    "self.pe[:T]).",
    "dropout_p_ignored": P_IGNORED[0],
    "x_scaled": "x is multiplied by sqrt(d_model): in this series the token embedding does that "
    "scaling (notebook 06); PositionalEncoding only adds pe[:T].",
    "table_only": "the output is the table alone: return x + pe[:T].",
    "pe_not_added": "the output equals the input: add pe[:T] to x.",
    "pe_subtracted": "the output is x - pe[:T]: add the table, x + pe[:T].",
    "sliced_by_batch": "pe is sliced by x.size(0), the batch size: the positions run along dim "
    "1 of x (B, T, d_model), so add self.pe[: x.size(1)]. (The PyTorch tutorial's table "
    "(max_len, 1, d_model) is made for x (T, B, d_model); any layout of pe is fine if row t is "
    "added to position t.)",
}


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


@register
class SinusoidalPositionalEncodingCheck(Exercise):
    id = "04.sinusoidal_positional_encoding"
    title = "the sinusoidal position table"
    points = 2.0

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
        atol = table_atol(max_len)
        check_sign(got, sinusoidal64(max_len, d_model), max_len, d_model)
        expect_close(
            got,
            sinusoidal64(max_len, d_model),
            "the table",
            atol=atol,
            rtol=1e-4,
            mistakes=table_mistakes(max_len, d_model),
            explain=table_faults,
        )


@register
class PositionalEncodingCheck(PropertyMixin, Exercise):
    id = "04.PositionalEncoding"
    title = "the positional-encoding module"
    points = 2.0
    kind = "module"

    def probes(self, gen):
        first = {"d_model": 16, "max_len": 64}
        name = "module_info: PositionalEncoding(d_model=16, max_len=64)"
        yield Probe(name, runner="module_info", init=first)
        for name, init, shape, dtype in [
            ("PositionalEncoding(16, max_len=64), x (2, 10, 16)",
             first, (2, 10, 16), torch.float32),
            ("PositionalEncoding(8) (max_len=5000 by default), x (1, 7, 8)",
             {"d_model": 8}, (1, 7, 8), torch.float32),
            ("PositionalEncoding(6, max_len=20, dropout=0.1) in eval mode, x (3, 20, 6), float64",
             {"d_model": 6, "max_len": 20, "dropout": 0.1}, (3, 20, 6), torch.float64),
            ("PositionalEncoding(12, max_len=30), x (4, 1, 12)",
             {"d_model": 12, "max_len": 30}, (4, 1, 12), torch.float32),
        ]:  # fmt: skip
            probe = Probe(
                name, (randn(*shape, generator=gen, dtype=dtype),), runner="module", init=init
            )
            yield props(probe, "batch") if "dropout" in init else probe
        yield Probe(
            "training mode, PositionalEncoding(8, max_len=20, dropout=0.5), x (3, 6, 8)",
            runner="train_mode",
            init={"d_model": 8, "max_len": 20, "dropout": 0.5},
            args=(randn(3, 6, 8, generator=gen),),
            kwargs={"dropout_seed": int(randint(gen, 0, 2**30))},
        )

    def explain_error(self, probe, error):
        max_len = (probe.init or {}).get("max_len", 5000)
        if probe.runner != "module_info" and f"size of tensor b ({max_len})" in error:
            return Fail(
                f"pe is not sliced: x has T = {probe.args[0].shape[1]} positions and the table "
                f"max_len = {max_len} rows, so x + self.pe cannot broadcast. Add the first T "
                "rows, x + self.pe[:T] with T = x.size(1).\n   " + error,
                "pe_not_sliced",
            )
        return None

    def judge_train(self, probe, out):
        train, evald, calls = train_mode_parts(out)
        (x,) = probe.args
        d_model, p = probe.init["d_model"], probe.init["dropout"]
        seed = probe.kwargs["dropout_seed"]
        x64, pe = x.double(), sinusoidal64(x.shape[1], d_model)
        self.judge_forward(probe, evald)
        train = expect_tensor(train, "the training-mode output")
        expect_like(train, x.shape, x.dtype, "the training-mode output")

        def drop(t, q=p):
            return fixed_dropout(t, q, seed)

        judge_dropout(
            train,
            evald,
            calls,
            drop(x64 + pe),
            named(
                PE_MISTAKES,
                dropout_before_adding_pe=lambda: drop(x64) + pe,
                dropout_on_pe=lambda: x64 + drop(pe),
                dropout_p_ignored=lambda: drop(x64 + pe, 0.1),
            ),
            "after adding pe, self.dropout(x + self.pe[:T])",
        )

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "PositionalEncoding", self.judge_info)
        if probe.runner == "train_mode":
            return self.judge_train(probe, out)
        self.judge_forward(probe, out)

    def judge_forward(self, probe, out):
        (x,) = probe.args
        d_model, T = probe.init["d_model"], x.shape[1]
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(got)
        x64 = x.double()
        pe = sinusoidal64(T, d_model)
        check_sign(got, x64 + pe, T, d_model, wrap=lambda p: x64 + p)
        expect_close(
            got,
            x64 + pe,
            atol=table_atol(T) + 1e-5,
            rtol=1e-4,
            mistakes=table_mistakes(T, d_model, wrap=lambda p: x64 + p)
            + named(
                PE_MISTAKES,
                x_scaled=lambda: x64 * math.sqrt(d_model) + pe,
                table_only=lambda: pe.expand_as(x64),
                pe_not_added=x64,
                pe_subtracted=lambda: x64 - pe,
                sliced_by_batch=lambda: x64 + sinusoidal64(x.shape[0], d_model)[:, None, :],
            ),
            explain=lambda got: table_faults((got.double() - x64).flatten(0, -3)[0]),
        )

    def judge_info(self, probe, info):
        params, buffers = info["parameters"], info["buffers"]
        d_model, max_len = probe.init["d_model"], probe.init["max_len"]
        if "pe" in params:
            raise Fail(
                "pe is registered as a parameter (nn.Parameter): the sinusoidal table is "
                "fixed, not learned. Use self.register_buffer('pe', table): a buffer moves "
                "with .to(device) and is saved in state_dict, but the optimizer never sees it.",
                "pe_is_parameter",
            )
        if params:
            raise Fail(
                f"PositionalEncoding has parameters {sorted(params)}: the sinusoidal "
                "encoding has none (the learned embedding is the alternative shown later).",
                "extra_parameters",
            )
        if "pe" not in buffers:
            raise Fail(
                "no buffer named `pe`: register the table with self.register_buffer('pe', "
                "table) (a plain tensor attribute does not move with .to(device)).",
                "pe_not_buffer",
            )
        numel = math.prod(buffers["pe"])
        if numel != max_len * d_model:
            raise Fail(
                f"the buffer pe has shape {tuple(buffers['pe'])}: expected max_len x d_model "
                f"= {max_len} x {d_model} values, e.g. shape ({max_len}, {d_model}).",
                "pe_shape",
            )


# --------------------------------------------------------------------------- questions


@register
class PermutationQuestion(Question):
    id = "04.q_permutation"
    title = "attention without positions, on shuffled tokens"
    answer = "b"
    choices = {
        "a": "nothing in attention looks at where a token sits: each output is a weighted "
        "average whose weights come from dot products of the token vectors alone, so "
        "shuffling cannot make new values appear.",
        "b": "",
        "c": "the outputs do not stay in the old order: output t belongs to the token now at "
        "position t, so they move with their tokens.",
        "d": "the outputs are not all equal: each query still has its own dot products with "
        "the keys, so different tokens get different weights and outputs.",
    }
    explanation = (
        "Attn(P x) = P Attn(x): each token's output depends on its own vector and the set of "
        "all tokens, not on their order, so shuffling the inputs shuffles the outputs the "
        "same way (permutation equivariance). Attention alone cannot tell 'dog bites man' "
        "from 'man bites dog'."
    )


@register
class PeriodQuestion(Question):
    id = "04.q_period"
    title = "the period of columns 4 and 5 of the table (d_model = 64)"
    answer = 2 * math.pi * 10000 ** (4 / 64)
    rel_tol = 0.03
    wrong_numbers = {
        10000 ** (4 / 64): "that is 1/w_2, the positions per radian: a full turn is 2π "
        "radians, so the period is 2π / w_i.",
        2 * math.pi * 10000 ** (5 / 64): "that uses the column index 5 in the exponent: "
        "columns 4 and 5 form pair i = 2 and share one frequency, w_2 = 10000^(-4/64).",
        2 * math.pi * 10000 ** (2 / 64): "that uses i = 2 instead of 2i = 4 in the exponent: "
        "w_i = 10000^(-2i/d_model).",
        2 * math.pi * 10000 ** (8 / 64): "that uses 2j = 8 for column j = 4: columns 2i and "
        "2i+1 share the frequency 10000^(-2i/d_model), and column 4 is 2i = 4.",
        2 * math.pi: "that is the period of columns 0 and 1 (w_0 = 1): columns 4 and 5 turn "
        "more slowly.",
    }
    explanation = (
        "2π · 10000^(4/64) ≈ 11.2 positions: columns 4 and 5 are pair i = 2, whose angle "
        "turns by w_2 = 10000^(-4/64) ≈ 0.56 radians per position, a full turn every "
        "2π / w_2 positions."
    )
