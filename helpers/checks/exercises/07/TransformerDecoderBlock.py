"""Notebook 07: the decoder block (greedy decoding: greedy_decode.py; the float64 reference:
reference.py).

The decoder block loads the same weights as ``nn.TransformerDecoderLayer(batch_first=True,
dropout=0.0, norm_first=...)`` (float64) and must match it; the known wrong variants come from
:func:`decoder64`, a float64 formula of the block with a switch per mistake."""

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
    fmt_shape,
    randn,
    register,
)
from ...modules import expect_names, judge_module_info
from ...parts import PartsMixin
from ...probes import P_TRAIN, fixed_drops
from ...weights import DECODER_PARTS, PROJECTIONS, block_names, block_state
from .reference import (
    BLOCK_MISPLACEMENTS,
    SUBLAYERS,
    decoder64,
    decoder_mistakes,
    torch_decoder_layer,
    torch_decoder_masks,
)

# BLOCK_MISPLACEMENTS and one sublayer's output without dropout: (skip, moved, message, code)
MISPLACED = BLOCK_MISPLACEMENTS + [
    ({f"res.{key}"}, (), f"no dropout on the {sub} sublayer's output: apply self.dropout to each "
     "sublayer's output before the residual sum.", f"no_{key}_dropout")
    for key, sub in SUBLAYERS
]  # fmt: skip


@register
class TransformerDecoderBlockCheck(PartsMixin, Exercise):
    parts = (
        ("self_attn|cross_attn", "03.MultiHeadAttention"),
        ("ffn", "05.FeedForward"),
        (r"norm\d", "05.LayerNorm"),
    )
    id = "07.TransformerDecoderBlock"
    title = "the decoder block: causal self-attention, cross-attention, feed-forward"
    points = 3.0
    kind = "module"
    forbid = (
        "torch.nn.TransformerDecoderLayer.forward",
        "torch.nn.MultiheadAttention.forward",
        "torch.nn.functional.multi_head_attention_forward",
    )

    def probes(self, gen):
        small = {"d_model": 8, "num_heads": 2, "d_ff": 16}
        causal5 = torch.ones(5, 5, dtype=torch.bool).tril()

        def pad(B, S):  # the last one to three memory positions are padding: (B, 1, 1, S)
            return (torch.arange(S) < S - 1 - torch.arange(B)[:, None] % 3)[:, None, None, :]

        yield Probe(
            "module_info: TransformerDecoderBlock(8, 2, 16)", runner="module_info", init=small
        )
        pre, post = {**small, "norm_first": True}, {**small, "norm_first": False}
        wide = {"d_model": 12, "num_heads": 3, "d_ff": 20, "norm_first": False}
        both = {"tgt_mask": causal5, "memory_mask": pad(2, 7)}
        cases = [  # (name, init, T, S, B, masks)
            ("pre-LN, no masks, x (2, 5, 8), memory (2, 7, 8)", pre, 5, 7, 2, {}),
            ("post-LN (norm_first=False), no masks, x (2, 5, 8), memory (2, 7, 8)", post, 5, 7, 2,
             {}),
            ("default norm_first (pre-LN), causal tgt_mask (5, 5), memory (2, 6, 8)", small, 5, 6,
             2, {"tgt_mask": causal5}),
            ("pre-LN, memory_mask (B, 1, 1, S) marking memory padding, x (3, 4, 8), memory "
             "(3, 6, 8)", pre, 4, 6, 3, {"memory_mask": pad(3, 6)}),
            ("pre-LN, causal tgt_mask and memory padding, x (2, 5, 8), memory (2, 7, 8)", pre, 5,
             7, 2, both),
            ("post-LN, causal tgt_mask and memory padding, x (2, 5, 8), memory (2, 7, 8)", post, 5,
             7, 2, both),
            ("post-LN, d_model=12, 3 heads, d_ff=20, causal tgt_mask, x (2, 5, 12), memory "
             "(2, 3, 12)", wide, 5, 3, 2, {"tgt_mask": causal5}),
            ("pre-LN, dropout=0.1 in eval mode, causal tgt_mask, x (1, 5, 8), memory (1, 4, 8)",
             {**pre, "dropout": 0.1}, 5, 4, 1, {"tgt_mask": causal5}),
        ]  # fmt: skip
        for norm_first, form in ((True, "pre-LN"), (False, "post-LN")):
            cases.append((
                f"training mode, dropout={P_TRAIN}, {form}, causal tgt_mask and memory padding "
                "(dropout where nn.TransformerDecoderLayer has it; the same fixed masks on both "
                "sides)", {**small, "norm_first": norm_first, "dropout": P_TRAIN}, 5, 7, 2, both,
            ))  # fmt: skip
        for name, init, T, S, B, masks in cases:
            d = init["d_model"]
            yield Probe(
                name,
                runner="block_train" if "training mode" in name else "block",
                init=init,
                state=block_state(gen, d, init["d_ff"], norm_scale=(0.4, 0.3), parts=DECODER_PARTS),
                args=(randn(B, T, d, generator=gen), randn(B, S, d, generator=gen)),
                kwargs=masks,
            )

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerDecoderBlock", self.judge_info)
        x, memory = probe.args
        wrong_inputs(out, x, memory)
        tgt_mask, memory_mask = probe.kwargs.get("tgt_mask"), probe.kwargs.get("memory_mask")
        init, st = probe.init, probe.state
        H, norm_first = init["num_heads"], init.get("norm_first", True)
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        if torch.isnan(got).any() and tgt_mask is not None and bool(tgt_mask.all(-1).any()):
            raise Fail(
                "the output contains NaN: tgt_mask is inverted, so a query whose keys are all "
                "allowed gets none. True means may attend (nn.TransformerDecoderLayer's masks "
                "use True = blocked).",
                "tgt_mask_inverted",
            )
        expect_finite(
            got,
            hint="With a mask, NaN comes from a row with no key allowed: masks mean "
            "True = may attend; pass tgt_mask to self-attention and memory_mask "
            "to cross-attention.",
        )
        if probe.runner == "block_train":
            return self.judge_train(probe, got)
        masks = torch_decoder_masks(tgt_mask, memory_mask, x.shape[1], memory.shape[1])
        with torch.no_grad():
            ref = torch_decoder_layer(init, st)(x.double(), memory.double(), **masks)

        def v(**kw):
            args = {"norm_first": norm_first, "tgt_mask": tgt_mask, "memory_mask": memory_mask}
            return lambda: decoder64(st, x, memory, H, **{**args, **kw})

        mistakes = decoder_mistakes(v, norm_first, tgt_mask, memory_mask)
        expect_close(got, ref, atol=1e-4, mistakes=mistakes)

    def judge_train(self, probe, got):
        """Training mode: the masks of nn.TransformerDecoderLayer's dropouts, in its order."""
        x, memory = probe.args
        init, st, p = probe.init, probe.state, probe.init["dropout"]
        masks = {k: probe.kwargs.get(k) for k in ("tgt_mask", "memory_mask")}

        def ref(skip=(), moved=()):
            drops = fixed_drops(p, skip, moved).block_kwargs()
            H = init["num_heads"]
            return decoder64(st, x, memory, H, norm_first=init["norm_first"], **masks, **drops)

        mistakes = [(lambda s=s, m=m: ref(s, m), msg, code) for s, m, msg, code in MISPLACED]
        expect_close(got, ref(), "the output in training mode", atol=1e-4, mistakes=mistakes)

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        use = "Use self.{0} = MultiHeadAttention(d_model, num_heads, dropout){1}."
        hints = {"ffn.linear1.weight": "Use self.ffn = FeedForward(d_model, d_ff, dropout)."}
        for p in PROJECTIONS:
            hints[f"self_attn.{p}.weight"] = use.format("self_attn", "")
            hints[f"cross_attn.{p}.weight"] = use.format("cross_attn", " (a second one)")
        for i in (1, 2, 3):
            hints[f"norm{i}.weight"] = "Use three norms, self.norm1, 2, 3 = LayerNorm(d_model)."
        expect_names(info, block_names(d, d_ff, DECODER_PARTS), "TransformerDecoderBlock", hints)


QUERIES_FROM_MEMORY = (
    "in cross-attention the queries come from the decoder (x), the keys and values from memory, "
    "cross_attn(query=h, key=memory, value=memory), so that its output has x's shape."
)


def wrong_inputs(out, x, memory) -> None:
    """A mask or memory given to the wrong attention: the broadcasting error it raised, or an
    output of memory's shape."""
    error = out.get("broadcast_error", "") if isinstance(out, dict) else ""
    if "dimension 3" in error:  # the scores (B, H, T, S) met a (T, T) mask, or (B, H, T, T) S
        raise Fail(
            f"{error}\n   a mask does not fit its attention's scores: tgt_mask (T, T) goes to "
            "self-attention, memory_mask (.., S) to cross-attention (are they swapped?).",
            "masks_swapped",
        )
    if error:
        raise Fail(
            f"{error}\n   x {fmt_shape(x.shape)} and memory {fmt_shape(memory.shape)} have "
            f"different lengths: {QUERIES_FROM_MEMORY}",
            "queries_from_memory",
        )
    if isinstance(out, torch.Tensor) and out.shape == memory.shape != x.shape:
        raise Fail(
            f"the output has memory's shape {fmt_shape(memory.shape)}: {QUERIES_FROM_MEMORY}",
            "queries_from_memory",
        )
