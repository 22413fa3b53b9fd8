"""04.PositionalEncoding: the positional-encoding module (its check)."""

from __future__ import annotations

import math

import torch
from torch import nn

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    randint,
    randn,
    register,
)
from ...mistakes import variants
from ...modules import judge_module_info
from ...probes import judge_dropout, train_mode_parts
from ...properties import PropertyMixin
from ...references import sinusoidal64
from ...run.modules import dropout_fixed
from ...run.relations import props
from .catalogue import TABLE
from .tables import check_sign, table_atol, table_faults, table_mistakes


def pe_as_learner(forward64):
    """The module a learner writes of sinusoidal64 (or of a wrong program made of it): its
    buffer pe, its forward given x, its dropout through F.dropout (the check's fixed masks)."""

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=5000, dropout=0.1):
            super().__init__()
            self.d_model, self.p = d_model, dropout
            self.register_buffer("pe", forward64(max_len, d_model).float())

        def forward(self, x):
            out = forward64(x.size(1), self.d_model, x.cpu(), self.p, self.training)
            return out.to(x)

    return PositionalEncoding


#: the module's mistakes in eval mode, after the table's (its mistakes in training mode: the rest)
FORWARD = ("x_scaled", "table_only", "pe_not_added", "pe_subtracted", "sliced_by_batch")
DROPOUT = ("dropout_before_adding_pe", "dropout_on_pe", "dropout_p_ignored")


@register
class PositionalEncodingCheck(PropertyMixin, Exercise):
    id = "04.PositionalEncoding"
    title = "the positional-encoding module"
    points = 2.0
    kind = "module"
    reference64 = staticmethod(sinusoidal64)
    learner = staticmethod(pe_as_learner)

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
        args = (x.shape[1], d_model, x.double(), p, True)
        self.judge_forward(probe, evald)
        train = expect_tensor(train, "the training-mode output")
        expect_like(train, x.shape, x.dtype, "the training-mode output")
        with dropout_fixed(seed):  # F.dropout with the masks the learner's module got
            mistakes = variants(self.mistakes, sinusoidal64, args, codes=DROPOUT)
            ref = sinusoidal64(*args)
            where = "after adding pe, self.dropout(x + self.pe[:T])"
            judge_dropout(train, evald, calls, ref, mistakes, where)

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
        args = (T, d_model, x.double())
        ref = sinusoidal64(*args)
        check_sign(self.mistakes, got, ref, args)
        expect_close(
            got,
            ref,
            atol=table_atol(T) + 1e-5,
            rtol=1e-4,
            mistakes=table_mistakes(self.mistakes, args, tuple(TABLE) + FORWARD),
            explain=lambda got: table_faults((got.double() - args[2]).flatten(0, -3)[0]),
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
