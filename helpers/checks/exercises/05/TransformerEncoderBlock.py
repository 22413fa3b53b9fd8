"""Notebook 05: the transformer encoder block, pre-LN and post-LN.

The learner's block and ``nn.TransformerEncoderLayer(batch_first=True, dropout=0.0)`` get the
same weights and their outputs are compared. The known wrong variants are edits of
:func:`block_ref64`, the block in float64 (exercises/05/catalogue.py). In training mode the
check's dropout uses fixed masks (``run.modules.dropout_fixed``) and ``block_ref64`` applies the
same ones where PyTorch's layer has dropout."""

from __future__ import annotations

import torch
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
from ...parts import PartsMixin, flow_fault
from ...probes import judge_dropout, train_mode_parts
from ...references import attn64, ffn64, layer_norm64
from ...run.modules import fixed_dropout
from ...run.parts import FLOW_KEY
from ...weights import PROJECTIONS, block_names, block_state, torch_layer, torch_masks


def block_ref64(state, x, num_heads, norm_first=True, activation="relu", mask=None, drop=None):
    """The block in float64 (nn.TransformerEncoderLayer's), ``drop`` the training mode's dropout
    (where PyTorch's layer has it). The catalogue's wrong programs are edits of it
    (exercises/05/catalogue.py)."""
    x, drop = x.double(), drop or (lambda t: t)
    n1, n2 = "norm1", "norm2"

    def norm1(h):
        return layer_norm64(h, state[f"{n1}.weight"], state[f"{n1}.bias"], 1e-5)

    def norm2(h):
        return layer_norm64(h, state[f"{n2}.weight"], state[f"{n2}.bias"], 1e-5)

    def attn(h):
        return attn64(state, "self_attn.", h, h, num_heads, mask, dropout=drop)

    def ffn(h):
        return ffn64(state, h, activation, prefix="ffn.", dropout=drop)

    if norm_first:
        x = x + drop(attn(norm1(x)))
        return x + drop(ffn(norm2(x)))
    x = norm1(x + drop(attn(x)))
    return norm2(x + drop(ffn(x)))


def block_as_learner(fn):
    """A learner's block whose forward is ``fn`` (block_ref64 or a wrong program of it), with the
    contract's parameters (the check loads their values)."""

    class TransformerEncoderBlock(nn.Module):
        def __init__(
            self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"
        ):
            super().__init__()
            for name, shape in block_names(d_model, d_ff).items():
                *path, leaf = name.split(".")
                module = self
                for part in path:
                    module = module._modules.setdefault(part, nn.Module())
                module.register_parameter(leaf, nn.Parameter(torch.ones(shape)))
            self.dropout, self.args = nn.Dropout(dropout), (num_heads, norm_first, activation)

        def forward(self, x, mask=None):
            state = dict(self.named_parameters())
            return fn(state, x, *self.args, mask, self.dropout).to(x.dtype)

    return TransformerEncoderBlock


@register
class TransformerEncoderBlockCheck(PartsMixin, Exercise):
    id = "05.TransformerEncoderBlock"
    title = "the transformer encoder block, pre-LN and post-LN"
    points = 3.0
    kind = "module"
    reference64 = staticmethod(block_ref64)
    learner = staticmethod(block_as_learner)
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
            self.mistakes,
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
        expect_block(self.mistakes, probe, evald, "the eval-mode output")
        train = expect_tensor(train, "the training-mode output")
        expect_like(train, x.shape, x.dtype, "the training-mode output")

        drop = lambda t: fixed_dropout(t, init["dropout"], seed)  # noqa: E731
        args = (st, x, init["num_heads"], init["norm_first"], "relu", None, drop)
        mistakes = variants(self.mistakes, block_ref64, args, codes=TRAIN)
        where = (
            "on the attention weights (inside self_attn), after each sublayer (dropout1, "
            "dropout2) and inside ffn, as in nn.TransformerEncoderLayer"
        )
        judge_dropout(train, evald, calls, block_ref64(*args), mistakes, where)

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


#: the dropouts a block may miss in training mode
TRAIN = (
    "no_ffn_dropout",
    "no_attn_dropout",
    "no_sublayer_dropout",
    "attn_without_dropout",
    "ffn_without_dropout",
    "sublayers_without_dropout",
)


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


def expect_block(catalogue: dict, probe, out, what: str, explain=None) -> None:
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
    mistakes = block_mistakes(catalogue, st, x, init, mask)
    atol = 1e-4 if x.dtype == torch.float32 else None
    expect_close(got, ref, what, atol=atol, mistakes=mistakes, explain=explain)


def block_mistakes(catalogue: dict, st: dict, x, init: dict, mask) -> list[tuple]:
    """(variant, message, code) for the known mistakes of the block in eval mode."""
    H, act = init["num_heads"], init.get("activation", "relu")
    pre = init.get("norm_first", True)
    fields = {
        "norm_first": pre,
        "act": act,
        "kind": "pre-LN" if pre else "post-LN",
        "steps": (PRE if pre else POST).split("computes ")[1],
        "attn": "x = x + attn(norm1(x))" if pre else "x = norm1(x + attn(x))",
        "ffn": "x = x + ffn(norm2(x))" if pre else "x = norm2(x + ffn(x))",
    }
    codes = (
        "norm_first_ignored",
        "no_residual",
        "no_attn_residual",
        "no_ffn_residual",
        "norms_swapped",
        "norm1_reused",
        *(("residual_from_normed", "final_norm") if pre else ("post_ln_norm_on_branch",)),
        *(("mask_ignored", "mask_inverted") if mask is not None else ()),
        "activation_ignored",
    )
    args = (st, x, H, pre, act, mask)
    return variants(catalogue, block_ref64, args, fields=fields, codes=codes)
