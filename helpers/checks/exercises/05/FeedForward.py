"""05.FeedForward: the position-wise feed-forward sublayer (its check)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...framework import (
    Exercise,
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
from ...modules import expect_names, judge_module_info
from ...probes import P_IGNORED, judge_dropout, train_mode_parts
from ...references import ffn64
from ...run.modules import fixed_dropout
from ...weights import linear_state

FFN_MISTAKES = {
    "dropout_after_linear2": "dropout is applied after linear2: it belongs on the hidden "
    "activations, linear2(dropout(act(linear1(x)))).",
    "dropout_before_activation": "dropout is applied before the activation: apply it after, "
    "linear2(dropout(act(linear1(x)))) (with ReLU both give the same numbers, with GELU they do "
    "not).",
    "dropout_on_input": "dropout is applied to the input x: apply it to the hidden activations, "
    "linear2(dropout(act(linear1(x)))).",
    "activation_ignored": "this is the {other} network, though activation={act!r} here: the "
    "`activation` argument is ignored, or picks the wrong function.",
    "tanh_gelu": "this GELU is the tanh approximation: use the exact one, F.gelu(h) "
    "(approximate='none'), as nn.TransformerEncoderLayer does.",
    "no_activation": "there is no activation between linear1 and linear2: two linear layers in a "
    "row are just one linear map.",
    "activation_after_linear2": "the activation is also applied after linear2: the output of "
    "linear2 is returned as is (it joins the residual stream).",
    "residual_inside": "the output includes x (a residual): FeedForward returns "
    "linear2(act(linear1(x))); the block adds the residual.",
}


@register
class FeedForwardCheck(Exercise):
    id = "05.FeedForward"
    title = "the position-wise feed-forward sublayer"
    points = 2.0
    kind = "module"

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

        mistakes = named(
            FFN_MISTAKES,
            dropout_after_linear2=v("output"),
            dropout_before_activation=v("pre_act"),
            dropout_on_input=v("input"),
        )
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
        w1, b1, w2, b2 = (st[f"linear{i}.{k}"].double() for i in (1, 2) for k in ("weight", "bias"))
        mistakes = named(
            FFN_MISTAKES,
            {"act": act, "other": other},
            activation_ignored=lambda: ffn64(st, x, other),
            tanh_gelu=lambda: ffn64(st, x, "gelu_tanh"),
            no_activation=lambda: F.linear(F.linear(x.double(), w1, b1), w2, b2),
            activation_after_linear2=[  # this activation, or a relu whatever `activation`
                lambda: ffn64(st, x, act, act_after=True),
                lambda: ffn64(st, x, act).relu(),
            ],
            residual_inside=lambda: x.double() + ffn64(st, x, act),
        )
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
