"""05.FeedForward: the position-wise feed-forward sublayer (its check)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ...framework import (
    Exercise,
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
from ...modules import expect_names, judge_module_info
from ...probes import P_IGNORED, judge_dropout, train_mode_parts
from ...references import activation64, ffn64
from ...run.modules import fixed_dropout
from ...weights import linear_state


def ffn_ref64(state, x, activation="relu", drop=lambda t: t):
    """The reference, float64: linear2(drop(act(linear1(x)))), ``drop`` the training mode's
    dropout. The catalogue's wrong programs are edits of it (exercises/05/catalogue.py)."""
    p = {k: v.double() for k, v in state.items()}
    h = F.linear(x.double(), p["linear1.weight"], p["linear1.bias"])
    h = drop(activation64(activation, h))
    return F.linear(h, p["linear2.weight"], p["linear2.bias"])


def ffn_as_learner(fn):
    """A learner's FeedForward whose forward is ``fn`` (ffn_ref64 or a wrong program of it)."""

    class FeedForward(nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
            super().__init__()
            self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
            self.dropout, self.activation = nn.Dropout(dropout), activation

        def forward(self, x):
            state = dict(self.named_parameters())
            return fn(state, x, self.activation, self.dropout).to(x.dtype)

    return FeedForward


#: the mistakes of the training mode's dropout, and of the eval mode's output
DROPOUT = ("dropout_after_linear2", "dropout_before_activation", "dropout_on_input")
EVAL = (
    "activation_ignored",
    "tanh_gelu",
    "no_activation",
    "activation_after_linear2",
    "residual_inside",
)


@register
class FeedForwardCheck(Exercise):
    id = "05.FeedForward"
    title = "the position-wise feed-forward sublayer"
    points = 2.0
    kind = "module"
    reference64 = staticmethod(ffn_ref64)
    learner = staticmethod(ffn_as_learner)

    def probes(self, gen):
        first = {"d_model": 8, "d_ff": 32}
        yield Probe("module_info: FeedForward(8, 32)", runner="module_info", init=first)
        # gelu in training mode: with relu, dropout before or after the activation is the same
        for name, init, shape, scale in [
            ("FeedForward(8, 32), relu, x (2, 5, 8)", first, (2, 5, 8), 1),
            ("FeedForward(6, 10, activation='gelu'), x (3, 4, 6)",
             {"d_model": 6, "d_ff": 10, "activation": "gelu"}, (3, 4, 6), 2),
            ("FeedForward(4, 12, dropout=0.1) in eval mode, x (2, 3, 4)",
             {"d_model": 4, "d_ff": 12, "dropout": 0.1}, (2, 3, 4), 1),
            ("FeedForward(5, 9, activation='relu'), x (2, 7, 5)",
             {"d_model": 5, "d_ff": 9, "activation": "relu"}, (2, 7, 5), 1),
            ("training mode, FeedForward(8, 16, dropout=0.5, activation='gelu'), x (3, 5, 8)",
             {"d_model": 8, "d_ff": 16, "dropout": 0.5, "activation": "gelu"}, (3, 5, 8), 1),
        ]:  # fmt: skip
            d, d_ff = init["d_model"], init["d_ff"]
            state = {
                **linear_state(gen, d, d_ff, "linear1."),
                **linear_state(gen, d_ff, d, "linear2."),
            }
            args = (scale * randn(*shape, generator=gen),)
            if "training" not in name:
                yield Probe(name, args, runner="module", init=init, state=state)
            else:
                seed = {"dropout_seed": int(randint(gen, 0, 2**30))}
                yield Probe(name, args, seed, runner="train_mode", init=init, state=state)

    def judge_train(self, probe, out):
        train, evald, calls = train_mode_parts(out)
        (x,) = probe.args
        st, act, p = probe.state, probe.init["activation"], probe.init["dropout"]
        seed = probe.kwargs["dropout_seed"]
        for t, what in ((train, "the output"), (evald, "the eval-mode output")):
            expect_like(expect_tensor(t, what), x.shape, x.dtype, what)
        expect_close(evald, ffn64(st, x, act), "the eval-mode output", atol=1e-4)

        def v(at, q=p):
            return lambda: ffn64(
                st, x, act, dropout=lambda t: fixed_dropout(t, q, seed), dropout_at=at
            )

        drop = lambda t: fixed_dropout(t, p, seed)  # noqa: E731
        mistakes = variants(self.mistakes, ffn_ref64, (st, x, act, drop), codes=DROPOUT)
        where = "to the hidden activations, linear2(dropout(act(linear1(x))))"
        judge_dropout(
            train, evald, calls, v("hidden")(), [*mistakes, (v("hidden", 0.1), *P_IGNORED)], where
        )

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "FeedForward", self.judge_info)
        if probe.runner == "train_mode":
            return self.judge_train(probe, out)
        (x,) = probe.args
        act = probe.init.get("activation", "relu")
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(got)
        st = probe.state
        other = "gelu" if act == "relu" else "relu"
        fields = {"act": act, "other": other}
        mistakes = variants(self.mistakes, ffn_ref64, (st, x, act), fields=fields, codes=EVAL)
        atol = 1e-4 if x.dtype == torch.float32 else None
        expect_close(got, ffn64(st, x, act), atol=atol, mistakes=mistakes)

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        expect_names(
            info,
            {
                "linear1.weight": [d_ff, d],
                "linear1.bias": [d_ff],
                "linear2.weight": [d, d_ff],
                "linear2.bias": [d],
            },
            "FeedForward",
            {
                "linear1.weight": "Create self.linear1 = nn.Linear(d_model, d_ff) and "
                "self.linear2 = "
                "nn.Linear(d_ff, d_model) (the names nn.TransformerEncoderLayer uses).",
                "linear1.weight.shape": "linear1 maps d_model -> d_ff: nn.Linear(d_model, d_ff).",
                "linear2.weight.shape": "linear2 maps d_ff -> d_model: nn.Linear(d_ff, d_model).",
            },
        )
