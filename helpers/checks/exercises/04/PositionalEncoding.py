"""04.PositionalEncoding: the positional-encoding module (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    named,
    randint,
    randn,
    register,
)
from ...modules import judge_module_info
from ...probes import P_IGNORED, judge_dropout, train_mode_parts
from ...properties import PropertyMixin
from ...references import sinusoidal64
from ...run.modules import fixed_dropout
from ...run.relations import props
from .tables import check_sign, table_atol, table_faults, table_mistakes

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
