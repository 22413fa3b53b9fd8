"""Notebook 07: the decoder block (greedy decoding: nb07_decode.py; the float64 reference:
nb07_reference.py).

The decoder block loads the same weights as ``nn.TransformerDecoderLayer(batch_first=True,
dropout=0.0, norm_first=...)`` (float64) and must match it; the known wrong variants come from
:func:`decoder64`, a float64 formula of the block with a switch per mistake. Greedy decoding
runs on a scripted model the runner builds from the probe: it predicts row b's script token
at position t when the decoder input so far is BOS followed by the script, and a wrong token
otherwise, so reading the wrong position or feeding back the wrong tokens shows.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
)
from .modules import (
    DECODER_PARTS,
    block_names,
    block_state,
    expect_names,
    judge_module_info,
)
from .nb07_reference import (
    BLOCK_MISPLACEMENTS,
    SUBLAYERS,
    decoder64,
    decoder_mistakes,
    torch_decoder_layer,
    torch_decoder_masks,
)
from .parts import PartsMixin, load_state, with_parts
from .probes import DROPOUT_SEED, P_TRAIN, fixed_drops, rng_untouched, train_forward
from .references import PROJECTIONS
from .runner import describe_exception, to_device

# --------------------------------------------------------------------------- the decoder block


class TransformerDecoderBlockCheck(PartsMixin, Exercise):
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

        def mem_padding(B, S):
            keep = torch.ones(B, S, dtype=torch.bool)
            for b in range(B):
                keep[b, S - 1 - b % 3 :] = (
                    False  # the last one to three memory positions are padding
                )
            return keep[:, None, None, :]  # (B, 1, 1, S)

        def case(name, init, T, S, B=2, train=False, **masks):
            d = init["d_model"]
            return Probe(
                name,
                runner="block_train" if train else "block",
                init=init,
                state=block_state(gen, d, init["d_ff"], norm_scale=(0.4, 0.3), parts=DECODER_PARTS),
                args=(randn(B, T, d, generator=gen), randn(B, S, d, generator=gen)),
                kwargs=masks,
            )

        yield Probe(
            "module_info: TransformerDecoderBlock(8, 2, 16)", runner="module_info", init=small
        )
        yield case(
            "pre-LN, no masks, x (2, 5, 8), memory (2, 7, 8)", {**small, "norm_first": True}, 5, 7
        )
        yield case(
            "post-LN (norm_first=False), no masks, x (2, 5, 8), memory (2, 7, 8)",
            {**small, "norm_first": False},
            5,
            7,
        )
        yield case(
            "default norm_first (pre-LN), causal tgt_mask (5, 5), memory (2, 6, 8)",
            small,
            5,
            6,
            tgt_mask=causal5,
        )
        yield case(
            "pre-LN, memory_mask (B, 1, 1, S) marking memory padding, "
            "x (3, 4, 8), memory (3, 6, 8)",
            {**small, "norm_first": True},
            4,
            6,
            B=3,
            memory_mask=mem_padding(3, 6),
        )
        yield case(
            "pre-LN, causal tgt_mask and memory padding, x (2, 5, 8), memory (2, 7, 8)",
            {**small, "norm_first": True},
            5,
            7,
            tgt_mask=causal5,
            memory_mask=mem_padding(2, 7),
        )
        yield case(
            "post-LN, causal tgt_mask and memory padding, x (2, 5, 8), memory (2, 7, 8)",
            {**small, "norm_first": False},
            5,
            7,
            tgt_mask=causal5,
            memory_mask=mem_padding(2, 7),
        )
        yield case(
            "post-LN, d_model=12, 3 heads, d_ff=20, causal tgt_mask, x (2, 5, 12), "
            "memory (2, 3, 12)",
            {"d_model": 12, "num_heads": 3, "d_ff": 20, "norm_first": False},
            5,
            3,
            tgt_mask=causal5,
        )
        yield case(
            "pre-LN, dropout=0.1 in eval mode, causal tgt_mask, x (1, 5, 8), memory (1, 4, 8)",
            {**small, "norm_first": True, "dropout": 0.1},
            5,
            4,
            B=1,
            tgt_mask=causal5,
        )
        for norm_first, form in ((True, "pre-LN"), (False, "post-LN")):
            yield case(
                f"training mode, dropout={P_TRAIN}, {form}, causal tgt_mask and memory padding "
                "(dropout where nn.TransformerDecoderLayer has it; the same fixed masks on both "
                "sides)",
                {**small, "norm_first": norm_first, "dropout": P_TRAIN},
                5,
                7,
                train=True,
                tgt_mask=causal5,
                memory_mask=mem_padding(2, 7),
            )

    @with_parts
    def run_block_train(self, probe, candidate, device):
        return self.block_output(probe, candidate, device, train=True)

    @with_parts
    def run_block(self, probe, candidate, device):
        return self.block_output(probe, candidate, device)

    def block_output(self, probe, candidate, device, train=False):
        """The "module" runner, and in training mode (train=True) with the check's fixed dropout
        masks (probes.dropout_fixed). A
        broadcasting error in a residual sum comes back as data, so the judge can name it."""
        with rng_untouched() if train else contextlib.nullcontext():
            module = candidate(**probe.init)
        if not isinstance(module, nn.Module):
            return module
        load_state(module, probe.state)
        args, kwargs = to_device(probe.args, device), to_device(probe.kwargs, device)
        try:
            if train:
                return train_forward(module.to(device), args, kwargs, DROPOUT_SEED)[0]
            with torch.no_grad():
                return module.to(device).eval()(*args, **kwargs)
        except RuntimeError as exc:
            if "must match the size of tensor" not in str(exc):
                raise
            return {"broadcast_error": describe_exception(exc)}

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerDecoderBlock", self.judge_info)
        x, memory = probe.args
        if isinstance(out, dict) and "dimension 3" in out.get("broadcast_error", ""):
            raise Fail(  # the scores (B, H, T, S) met a (T, T) mask, or (B, H, T, T) a (.., S)
                f"{out['broadcast_error']}\n   a mask does not fit its attention's scores: "
                "tgt_mask (T, T) goes to self-attention, memory_mask (.., S) to cross-attention "
                "(are they swapped?).",
                "masks_swapped",
            )
        if isinstance(out, dict) and "broadcast_error" in out:
            raise Fail(
                f"{out['broadcast_error']}\n   x {fmt_shape(x.shape)} and memory "
                f"{fmt_shape(memory.shape)} have different lengths: in cross-attention the "
                "queries come from the decoder, cross_attn(query=h, key=memory, value=memory), "
                "so that its output has x's shape.",
                "queries_from_memory",
            )
        tgt_mask, memory_mask = probe.kwargs.get("tgt_mask"), probe.kwargs.get("memory_mask")
        init, st = probe.init, probe.state
        H, norm_first = init["num_heads"], init.get("norm_first", True)
        got = expect_tensor(out)
        if tuple(got.shape) == tuple(memory.shape) and memory.shape != x.shape:
            raise Fail(
                f"the output has memory's shape {fmt_shape(memory.shape)}: in cross-attention "
                "the queries come from the decoder (x), the keys and values from memory, "
                "cross_attn(query=h, key=memory, value=memory).",
                "queries_from_memory",
            )
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
        with torch.no_grad():
            ref = torch_decoder_layer(init, st)(
                x.double(),
                memory.double(),
                **torch_decoder_masks(tgt_mask, memory_mask, x.shape[0], H),
            )

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

        mistakes = [
            (lambda s=s, m=m: ref(s, m), msg, slug) for s, m, msg, slug in BLOCK_MISPLACEMENTS
        ]
        for key, sub in SUBLAYERS:
            mistakes.append(
                (
                    lambda key=key: ref({f"res.{key}"}),
                    f"no dropout on the {sub} sublayer's output: apply self.dropout to each "
                    "sublayer's output before the residual sum.",
                    f"no_{key}_dropout",
                )
            )
        expect_close(got, ref(), "the output in training mode", atol=1e-4, mistakes=mistakes)

    def judge_info(self, probe, info):
        d, d_ff = probe.init["d_model"], probe.init["d_ff"]
        expect_names(
            info,
            block_names(d, d_ff, DECODER_PARTS),
            "TransformerDecoderBlock",
            {
                **{
                    f"self_attn.{p}.weight": "Use self.self_attn = MultiHeadAttention(d_model, "
                    "num_heads, "
                    "dropout)."
                    for p in PROJECTIONS
                },
                **{
                    f"cross_attn.{p}.weight": "Use self.cross_attn = MultiHeadAttention(d_model, "
                    "num_heads, "
                    "dropout) (a second one, with its own weights)."
                    for p in PROJECTIONS
                },
                "ffn.linear1.weight": "Use self.ffn = FeedForward(d_model, d_ff, dropout).",
                **{
                    f"norm{i}.weight": "Use three norms, self.norm1, self.norm2, self.norm3 = "
                    "LayerNorm(d_model)."
                    for i in (1, 2, 3)
                },
            },
        )
