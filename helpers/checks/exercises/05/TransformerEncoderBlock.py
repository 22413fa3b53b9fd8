"""Notebook 05: the transformer encoder block, pre-LN and post-LN.

The learner's block and ``nn.TransformerEncoderLayer(batch_first=True, dropout=0.0)`` get the
same weights and their outputs are compared. The known wrong variants are computed by
:func:`references.block64`, a float64 formula of the block with switches for each mistake. In
training mode the check's dropout uses fixed masks (``run.modules.dropout_fixed``) and ``block64``
applies the same ones where PyTorch's layer has dropout (tests/checks/test_nb05.py compares
the two)."""

from __future__ import annotations

import torch

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
from ...parts import PartsMixin, flow_fault
from ...probes import judge_dropout, train_mode_parts
from ...references import block64
from ...run.modules import fixed_dropout
from ...run.parts import FLOW_KEY
from ...weights import PROJECTIONS, block_names, block_state, torch_layer, torch_masks


@register
class TransformerEncoderBlockCheck(PartsMixin, Exercise):
    id = "05.TransformerEncoderBlock"
    title = "the transformer encoder block, pre-LN and post-LN"
    points = 3.0
    kind = "module"
    parts = (
        ("self_attn", "03.MultiHeadAttention"),
        ("ffn", "05.FeedForward"),
        (r"norm\d", "05.LayerNorm"),
    )
    traced = ("norm1", "self_attn", "norm2", "ffn")

    def probes(self, gen):
        small = {"d_model": 8, "num_heads": 2, "d_ff": 16}
        gelu = {"d_model": 12, "num_heads": 3, "d_ff": 20, "norm_first": True, "activation": "gelu"}
        pad, causal = "padding", torch.ones(5, 5, dtype=torch.bool).tril()
        yield Probe(
            "module_info: TransformerEncoderBlock(8, 2, 16)", runner="module_info", init=small
        )
        for name, init, shape, mask in [  # mask "padding": the last one or two keys of a row
            ("pre-LN (norm_first=True), d_model=8, 2 heads, x (2, 5, 8)",
             {"norm_first": True}, (2, 5, 8), None),
            ("post-LN (norm_first=False), d_model=8, 2 heads, x (2, 5, 8)",
             {"norm_first": False}, (2, 5, 8), None),
            ("default norm_first (True: pre-LN), x (1, 4, 8)", {}, (1, 4, 8), None),
            ("pre-LN with a padding mask (B, 1, 1, T), x (2, 6, 8)",
             {"norm_first": True}, (2, 6, 8), pad),
            ("post-LN with a causal mask (T, T), x (2, 5, 8)",
             {"norm_first": False}, (2, 5, 8), causal),
            ("pre-LN, gelu, d_model=12, 3 heads, d_ff=20, x (3, 4, 12)", gelu, (3, 4, 12), None),
            ("post-LN with a padding mask, dropout=0.1 in eval mode, x (2, 7, 8)",
             {"norm_first": False, "dropout": 0.1}, (2, 7, 8), pad),
        ]:  # fmt: skip
            init, (B, T, d) = {**small, **init}, shape
            if mask is pad:
                mask = torch.arange(T) < T - 1 - torch.arange(B)[:, None] % 2  # (B, T)
                mask = mask[:, None, None, :]  # (B, 1, 1, T)
            state = block_state(gen, d, init["d_ff"], norm_scale=(0.4, 0.3))
            kwargs = {} if mask is None else {"mask": mask}
            yield Probe(name, (randn(*shape, generator=gen),), kwargs, "parts", init, state)
        for norm_first in (True, False):
            yield Probe(
                f"training mode, dropout=0.5, norm_first={norm_first}, x (2, 6, 8)",
                runner="train_mode",
                init={**small, "norm_first": norm_first, "dropout": 0.5},
                state=block_state(gen, 8, 16, norm_scale=(0.4, 0.3)),
                args=(randn(2, 6, 8, generator=gen),),
                kwargs={"dropout_seed": int(randint(gen, 0, 2**30))},
            )

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerEncoderBlock", self.judge_info)
        if probe.runner == "train_mode":
            return self.judge_train(probe, out)
        flow = out.get(FLOW_KEY) if isinstance(out, dict) else None
        got = out["out"] if flow is not None else out
        pre = probe.init.get("norm_first", True)
        expect_block(
            probe,
            got,
            "the output",
            flow
            and (lambda g: flow_fault(flow, probe.args[0], g, STEPS[pre], PRE if pre else POST)),
        )

    def judge_train(self, probe, out):
        train, evald, calls = train_mode_parts(out)
        (x,) = probe.args
        init, st, seed = probe.init, probe.state, probe.kwargs["dropout_seed"]
        expect_block(probe, evald, "the eval-mode output")
        train = expect_tensor(train, "the training-mode output")
        expect_like(train, x.shape, x.dtype, "the training-mode output")

        def v(*skip):
            return lambda: block64(
                st,
                x,
                init["num_heads"],
                norm_first=init["norm_first"],
                dropout=lambda t: fixed_dropout(t, init["dropout"], seed),
                skip_dropout=skip,
            )

        mistakes = [(v(*skip), message, code) for skip, message, code in TRAIN_MISTAKES]
        where = (
            "on the attention weights (inside self_attn), after each sublayer (dropout1, "
            "dropout2) and inside ffn, as in nn.TransformerEncoderLayer"
        )
        judge_dropout(train, evald, calls, v()(), mistakes, where)

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        expect_names(
            info,
            block_names(d, d_ff),
            "TransformerEncoderBlock",
            {
                **{
                    f"self_attn.{p}.weight": "Use self.self_attn = MultiHeadAttention(d_model, "
                    "num_heads, dropout) from notebook 03."
                    for p in PROJECTIONS
                },
                "ffn.linear1.weight": "Use self.ffn = FeedForward(d_model, d_ff, dropout, "
                "activation).",
                "norm1.weight": "Use self.norm1 = LayerNorm(d_model) and self.norm2 = "
                "LayerNorm(d_model).",
                "norm2.weight": "Use self.norm1 = LayerNorm(d_model) and self.norm2 = "
                "LayerNorm(d_model).",
            },
        )


BUILT = "(PyTorch's layer has it there)"


#: the dropouts a block may miss in training mode: (block64's skip_dropout, message, code)
TRAIN_MISTAKES = [
    (("ffn_out",), "the dropout after the feed-forward sublayer (dropout2) is missing: "
     f"x + dropout2(ffn(...)) {BUILT}.", "no_ffn_dropout"),
    (("attn_out",), "the dropout after self-attention (dropout1) is missing: use "
     f"self._attn(h, mask), which applies it {BUILT}.", "no_attn_dropout"),
    (("attn_out", "ffn_out"), "dropout1 and dropout2 are missing: each sublayer's output goes "
     f"through dropout before it is added {BUILT}.", "no_sublayer_dropout"),
    (("weights",), "self_attn has no dropout: build it with MultiHeadAttention(d_model, "
     "num_heads, dropout).", "attn_without_dropout"),
    (("ffn_hidden",), "ffn has no dropout: build it with FeedForward(d_model, d_ff, dropout, "
     "activation).", "ffn_without_dropout"),
    (("weights", "ffn_hidden"), "self_attn and ffn have no dropout: pass `dropout` on to "
     "MultiHeadAttention(...) and FeedForward(...).", "sublayers_without_dropout"),
]  # fmt: skip


PRE = "a pre-LN block computes x = x + self_attn(norm1(x)), then x = x + ffn(norm2(x))"


POST = "a post-LN block computes x = norm1(x + self_attn(x)), then x = norm2(x + ffn(x))"


def _step(key: str, value, should: str, block: str) -> tuple:
    part = "the block's output" if key == "out" else f"the input of {key.split('.')[0]}"
    code = "wrong_output" if key == "out" else f"wrong_{key.split('.')[0]}_input"
    return key, value, f"{part} is not {should}: {block} (a step of your forward differs).", code


#: the steps of the block, each as its value from the recorded calls (parts.flow_fault)
STEPS = {
    True: [
        _step("norm1.in", lambda v: v["x"], "the block's input x", PRE),
        _step("self_attn.in", lambda v: v["norm1.out"], "norm1(x)", PRE),
        _step("norm2.in", lambda v: v["x"] + v["self_attn.out"], "x + self_attn(norm1(x))", PRE),
        _step("ffn.in", lambda v: v["norm2.out"], "norm2(x) of the first sum", PRE),
        _step("out", lambda v: v["norm2.in"] + v["ffn.out"], "x + ffn(norm2(x))", PRE),
    ],
    False: [
        _step("self_attn.in", lambda v: v["x"], "the block's input x", POST),
        _step("norm1.in", lambda v: v["x"] + v["self_attn.out"], "x + self_attn(x)", POST),
        _step("ffn.in", lambda v: v["norm1.out"], "norm1's output", POST),
        _step("norm2.in", lambda v: v["norm1.out"] + v["ffn.out"], "x + ffn(x)", POST),
        _step("out", lambda v: v["norm2.out"], "norm2's output", POST),
    ],
}


def expect_block(probe, out, what: str, explain=None) -> None:
    """The eval-mode output against nn.TransformerEncoderLayer, naming the known mistakes."""
    (x,) = probe.args
    mask = probe.kwargs.get("mask")
    init, st = probe.init, probe.state
    got = expect_tensor(out, what)
    expect_like(got, x.shape, x.dtype, what)
    expect_finite(
        got,
        what,
        hint="With a mask, NaN comes from a row with no key allowed: the mask "
        "means True = may attend, pass it to self_attn unchanged.",
    )
    with torch.no_grad():
        ref = torch_layer(init, st)(x.double(), **torch_masks(mask, x.shape[1]))
    mistakes = block_mistakes(st, x, init, mask)
    atol = 1e-4 if x.dtype == torch.float32 else None
    expect_close(got, ref, what, atol=atol, mistakes=mistakes, explain=explain)


#: the known mistakes of the block in eval mode: block64's switches for each code
BLOCK_MISTAKES = {
    "norm_first_ignored": "norm_first is ignored: with norm_first={norm_first} the block is "
    "{kind}, {steps}.",
    "no_residual": "the residual connections are missing: each sublayer's output is added to its "
    "input, x = x + sublayer(...).",
    "no_attn_residual": "the residual around self-attention is missing: {attn}.",
    "no_ffn_residual": "the residual around the feed-forward sublayer is missing: {ffn}.",
    "norms_swapped": "norm1 and norm2 are swapped: norm1 belongs to the attention sublayer, norm2 "
    "to the feed-forward sublayer.",
    "norm1_reused": "norm1 is used for both sublayers: the feed-forward sublayer has its own "
    "LayerNorm, norm2 (two norms, two sets of weights).",
    "residual_from_normed": "the residual is taken from the normalized input: add the raw x, x = x "
    "+ attn(norm1(x)), not h + attn(h) with h = norm1(x).",
    "final_norm": "the output is normalized at the end: a pre-LN block returns x + ffn(norm2(x)) "
    "as is (the final norm belongs to the encoder, notebook 06).",
    "post_ln_norm_on_branch": "this post-LN block computes x + LN(f(x)), the norm on the "
    "sublayer's output: post-LN normalizes the sum, {steps}.",
    "mask_ignored": "the mask is ignored: pass it on, self_attn(h, mask=mask).",
    "mask_inverted": "the mask is inverted: in this series True means may attend (the opposite "
    "of nn.MultiheadAttention's attn_mask).",
    "activation_ignored": "the `activation` argument does not reach the feed-forward sublayer "
    "(activation={act!r} here).",
}


def block_mistakes(st: dict, x, init: dict, mask) -> list[tuple]:
    """(variant, message, code) for the known mistakes of the block in eval mode."""
    H, act = init["num_heads"], init.get("activation", "relu")
    pre = init.get("norm_first", True)

    def v(**kw):
        args = {"norm_first": pre, "activation": act, "mask": mask, **kw}
        return lambda: block64(st, x, H, **args)

    fields = {
        "norm_first": pre,
        "act": act,
        "kind": "pre-LN" if pre else "post-LN",
        "steps": (PRE if pre else POST).split("computes ")[1],
        "attn": "x = x + attn(norm1(x))" if pre else "x = norm1(x + attn(x))",
        "ffn": "x = x + ffn(norm2(x))" if pre else "x = norm2(x + ffn(x))",
    }
    switches = {
        "norm_first_ignored": {"norm_first": not pre},
        "no_residual": {"residual": "none"},
        "no_attn_residual": {"residual": "ffn_only"},
        "no_ffn_residual": {"residual": "attn_only"},
        "norms_swapped": {"swap_norms": True},
        "norm1_reused": {"ffn_norm": "norm1"},
        **({"residual_from_normed": {"residual": "normed"}, "final_norm": {"final_norm": True}}
           if pre else {"post_ln_norm_on_branch": {"post_ln": "sum_of_norm"}}),
        **({"mask_ignored": {"mask": None}, "mask_inverted": {"mask": ~mask}}
           if mask is not None else {}),
        "activation_ignored": {"activation": "gelu" if act == "relu" else "relu"},
    }  # fmt: skip
    return named(BLOCK_MISTAKES, fields, **{code: v(**kw) for code, kw in switches.items()})
