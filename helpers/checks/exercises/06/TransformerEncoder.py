"""Notebook 06: the encoder stack (the training loop: train_one_epoch.py; the float64 reference:
reference.py).

The encoder is checked against a float64 reference made of PyTorch's own pieces
(``nn.TransformerEncoderLayer``, ``F.layer_norm``) with the probe's weights copied in; the
attention maps against ``nn.MultiheadAttention``'s per-head weights."""

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
    randint,
    register,
)
from ...modules import expect_names, judge_maps, judge_module_info
from ...parts import PartsMixin
from ...probes import P_TRAIN, fixed_drops
from ...references import STACK_MISPLACEMENTS, stack64
from .reference import (
    ENCODER_MISPLACEMENTS,
    encoder64,
    encoder_init,
    encoder_names,
    encoder_ref64,
    encoder_state,
    encoder_variants,
)


def encoder_as_learner(fn):
    """The course's encoder whose eval-mode forward is ``fn`` (encoder_ref64 or a wrong
    program); training mode and attention_maps are the course's own."""
    from ....blocks.encoder import TransformerEncoder

    class Encoder(TransformerEncoder):
        def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, **kw):
            super().__init__(vocab_size, d_model, num_heads, num_layers, d_ff, **kw)
            self.init = {"d_model": d_model, "num_heads": num_heads,
                         "num_layers": num_layers, "d_ff": d_ff}  # fmt: skip
            self.norm_first = kw.get("norm_first", True)

        def forward(self, tokens, mask=None):
            if self.training:
                return super().forward(tokens, mask)
            st = {**dict(self.named_buffers()), **dict(self.named_parameters())}
            return fn(self.init, st, tokens, mask, self.norm_first).float()

    return Encoder


@register
class TransformerEncoderCheck(PartsMixin, Exercise):
    parts = (
        ("pos_encoding", "04.PositionalEncoding"),
        (r"layers\.\d+", "05.TransformerEncoderBlock"),
        ("norm", "05.LayerNorm"),
    )
    id = "06.TransformerEncoder"
    modes = {"attention_maps": "kept"}
    title = "the encoder: embedding, positions, a stack of blocks, a final norm"
    points = 3.0
    kind = "module"
    reference64 = staticmethod(encoder_ref64)
    learner = staticmethod(encoder_as_learner)
    forbid = (
        "torch.nn.TransformerEncoderLayer.forward",
        "torch.nn.TransformerEncoder.forward",
        "torch.nn.MultiheadAttention.forward",
        "torch.nn.functional.multi_head_attention_forward",
    )

    def probes(self, gen):
        base = encoder_init()
        yield Probe(
            "module_info: TransformerEncoder(vocab_size=11, d_model=8, num_heads=2, "
            "num_layers=2, d_ff=16, max_len=32)",
            runner="module_info",
            init=base,
        )
        three = encoder_init(vocab_size=7, d_model=12, num_heads=3, num_layers=3, d_ff=20)
        three["max_len"] = 16
        one = encoder_init(num_layers=1)
        one.pop("max_len")  # the default, 512

        def padded(B, T, ends):  # tokens with padding (id 0) from ends[b] on, and their mask
            tokens = randint(gen, 1, 11, B, T)
            for b, end in enumerate(ends):
                tokens[b, end:] = 0
            return tokens, {"mask": (tokens != 0)[:, None, None, :]}

        causal = {"mask": torch.ones(6, 6, dtype=torch.bool).tril()}
        train = f"training mode, dropout={P_TRAIN}, {{}}, tokens (2, 6) (dropout in the "
        train += "positional encoding and the blocks; the same fixed masks on both sides)"
        for name, runner, init, (tokens, kwargs) in (
            ("2 layers, d_model=8, tokens (2, 5)", "parts", base,
             (randint(gen, 0, 11, 2, 5), {})),
            ("3 layers, d_model=12, 3 heads, tokens (3, 6)", "parts", three,
             (randint(gen, 0, 7, 3, 6), {})),
            ("with a padding mask (B, 1, 1, T), tokens (2, 7)", "parts", base,
             padded(2, 7, (5, 6))),
            ("with a causal mask (T, T), tokens (2, 6)", "parts", base,
             (randint(gen, 0, 11, 2, 6), causal)),
            ("1 layer, default max_len, dropout=0.1 in eval mode, tokens (1, 9)", "parts",
             {**one, "dropout": 0.1}, (randint(gen, 0, 11, 1, 9), {})),
            ("norm_first=False (post-LN blocks), tokens (2, 5)", "parts",
             {**base, "norm_first": False}, (randint(gen, 0, 11, 2, 5), {})),
            ("attention_maps, 2 layers, tokens (2, 5)", "maps", base,
             (randint(gen, 0, 11, 2, 5), {})),
            ("attention_maps, 3 layers, 3 heads, post-LN blocks (norm_first=False), tokens (1, 6)",
             "maps", {**three, "norm_first": False}, (randint(gen, 0, 7, 1, 6), {})),
            (train.format("pre-LN, padding mask"), "encoder_train",
             {**base, "dropout": P_TRAIN, "norm_first": True}, padded(2, 6, (6, 4))),
            (train.format("post-LN"), "encoder_train",
             {**base, "dropout": P_TRAIN, "norm_first": False}, (padded(2, 6, (6, 4))[0], {})),
        ):  # fmt: skip
            state = encoder_state(gen, init)
            info = {"method": "attention_maps"} if runner == "maps" else {}
            runner = "parts" if runner != "encoder_train" else runner
            yield Probe(name, (tokens,), kwargs, runner, init=init, state=state, info=info)

    def judge_value(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerEncoder", self.judge_info)
        if isinstance(out, dict):  # the class did not build an nn.Module
            raise Fail("TransformerEncoder(...) should build a torch.nn.Module.", "not_a_module")
        if probe.info.get("method") == "attention_maps":
            return self.judge_maps(probe, out)
        init, st = probe.init, probe.state
        (tokens,) = probe.args
        mask = probe.kwargs.get("mask")
        norm_first = init.get("norm_first", True)
        B, T = tokens.shape
        got = expect_tensor(out)
        expect_like(got, (B, T, init["d_model"]), torch.float32)
        expect_finite(
            got,
            hint="With a mask, NaN comes from a row with no key allowed: pass the "
            "mask (True = may attend) to every block unchanged.",
        )
        if probe.runner == "encoder_train":
            return self.judge_train(probe, got)
        ref = encoder64(init, st, tokens, mask, norm_first=norm_first)

        mistakes = encoder_variants(init, st, tokens, mask, norm_first)
        expect_close(got, ref, atol=1e-4, mistakes=mistakes)

    def judge_train(self, probe, got):
        """Training mode: dropout in PositionalEncoding and in every block, nowhere else."""
        init, st, (tokens,) = probe.init, probe.state, probe.args
        mask = probe.kwargs.get("mask")

        def ref(skip=(), moved=()):
            drops = fixed_drops(init["dropout"], skip, moved)
            e = st["embedding.weight"].double()[tokens] * math.sqrt(init["d_model"])
            e = drops("emb", e) if "embedding" in drops.moved else e
            x = drops("pos", e + st["pos_encoding.pe"].double()[: tokens.shape[1]])
            L, H = init["num_layers"], init["num_heads"]
            return stack64(st, x, "layers.", L, H, drops, mask=mask, norm_first=init["norm_first"])

        mistakes = [
            (lambda s=s, m=m: ref(s, m), msg, slug)
            for s, m, msg, slug in ENCODER_MISPLACEMENTS + STACK_MISPLACEMENTS
        ]
        expect_close(got, ref(), "the output in training mode", atol=1e-4, mistakes=mistakes)

    def judge_maps(self, probe, out):
        init, st, (tokens,) = probe.init, probe.state, probe.args
        pre = init.get("norm_first", True)

        def maps(on):
            return encoder64(init, st, tokens, norm_first=pre, maps=True, maps_on=on)

        shape = (*tokens.shape[:1], init["num_heads"], tokens.shape[1], tokens.shape[1])
        first = "maps_without_norm1" if pre else "maps_pre_ln_on_post_ln"
        variants = {first: maps("raw" if pre else "normed"), "maps_on_embedding": maps("embedding")}
        judge_maps(out, maps("input"), shape, torch.float32, variants)

    def judge_info(self, probe, info):
        init = probe.init
        params = info["parameters"]
        if not any(k.startswith("layers.") for k in params):
            raise Fail(
                "TransformerEncoder has no parameters under `layers`: keep the blocks in an "
                "nn.ModuleList (a plain Python list hides them from PyTorch).",
                "layers_in_plain_list",
            )
        if "embedding.weight" not in params:
            raise Fail(
                "TransformerEncoder has no `embedding`: self.embedding = "
                "nn.Embedding(vocab_size, d_model).",
                "no_embedding",
            )
        L = init["num_layers"]
        if (
            L > 1
            and not any(k.startswith(f"layers.{L - 1}.") for k in params)
            and any(k.startswith("layers.0.") for k in params)
        ):
            raise Fail(
                f"only layers.0 has parameters: the list holds the same block {L} times "
                "([block] * num_layers shares one set of weights). Build a new block per layer: "
                "nn.ModuleList([TransformerEncoderBlock(...) for _ in range(num_layers)]).",
                "one_block_repeated",
            )
        children = info["children"]
        if children.get("pos_encoding") is None:
            raise Fail(
                "TransformerEncoder has no `pos_encoding`: self.pos_encoding = "
                "PositionalEncoding(d_model, max_len, dropout).",
                "no_pos_encoding",
            )
        expect_names(
            info,
            encoder_names(init),
            "TransformerEncoder",
            {
                "norm.weight": "Add the final norm: self.norm = LayerNorm(d_model).",
                "layers.1.self_attn.q_proj.weight": "Build num_layers separate blocks, "
                "nn.ModuleList("
                "[TransformerEncoderBlock(...) for _ in range(num_layers)]); "
                "[block] * num_layers repeats the same block.",
            },
        )
