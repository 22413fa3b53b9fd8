"""More wrong versions of 06-07 (issue 12): dropout placement in training mode, code adapted from
public implementations (the Annotated Transformer, d2l), and other plausible mistakes."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers import check
from helpers.blocks.decoder import TransformerDecoderBlock
from helpers.blocks.encoder import TransformerEncoder
from helpers.blocks.layers import FeedForward, TransformerEncoderBlock
from helpers.blocks.multihead import MultiHeadAttention

from ._common import make_tests, right, wrong

ENC, TOE, DB, GD = (
    "06.TransformerEncoder",
    "06.train_one_epoch",
    "07.TransformerDecoderBlock",
    "07.greedy_decode",
)

# -------------------------------------------------------------------------- 06.TransformerEncoder


def encoder_with(block_dropout=True, pos_dropout=True, extra=""):
    """The encoder, built with or without dropout in its parts, or with an extra dropout."""

    class Encoder(TransformerEncoder):
        def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len=512,
                     dropout=0.0, norm_first=True):  # fmt: skip
            super().__init__(vocab_size, d_model, num_heads, num_layers, d_ff, max_len,
                             dropout if pos_dropout else 0.0, norm_first)  # fmt: skip
            p = dropout if block_dropout else 0.0
            self.layers = nn.ModuleList(
                [TransformerEncoderBlock(d_model, num_heads, d_ff, p, norm_first)]
                + [
                    TransformerEncoderBlock(d_model, num_heads, d_ff, p, norm_first)
                    for _ in range(num_layers - 1)
                ]  # fmt: skip
            )
            self.extra = nn.Dropout(dropout)

        def embed(self, tokens):
            e = self.embedding(tokens) * math.sqrt(self.d_model)
            return self.pos_encoding(self.extra(e) if extra == "embedding" else e)

        def forward(self, tokens, mask=None):
            x = self.embed(tokens)
            for layer in self.layers:
                x = layer(x, mask)
                x = self.extra(x) if extra == "between" else x
            x = self.norm(x)
            return self.extra(x) if extra == "final" else x

    return Encoder


class D2LEncoder(TransformerEncoder):
    """d2l's TransformerEncoder, adapted: post-LN blocks whatever norm_first says, no final norm."""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len=512,
                 dropout=0.0, norm_first=True):  # fmt: skip
        super().__init__(vocab_size, d_model, num_heads, num_layers, d_ff, max_len, dropout)
        self.layers = nn.ModuleList(
            [
                TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first=False)
                for _ in range(num_layers)
            ]  # fmt: skip
        )

    def forward(self, tokens, mask=None):
        x = self.pos_encoding(self.embedding(tokens) * math.sqrt(self.d_model))
        for blk in self.layers:
            x = blk(x, mask)
        return x


ENC_WRONG = [
    wrong(ENC, "blocks_without_dropout", encoder_with(block_dropout=False), "dropout"),
    wrong(ENC, "positions_without_dropout", encoder_with(pos_dropout=False), "dropout"),
    wrong(ENC, "no_dropout", encoder_with(False, False), "no dropout"),
    wrong(ENC, "extra_embedding_dropout", encoder_with(extra="embedding"), "extra dropout"),
    wrong(ENC, "dropout_between_blocks", encoder_with(extra="between"), "extra dropout"),
    wrong(ENC, "dropout_after_final_norm", encoder_with(extra="final"), "final norm"),
    wrong(ENC, "d2l_post_ln_no_final_norm", D2LEncoder, "norm"),
]
ENC_OK = [right(ENC, "dropout_everywhere_it_belongs", encoder_with())]

# ----------------------------------------------------------------------------- 06.train_one_epoch


def loop(mistake):
    def train_one_epoch(model, batches, optimizer, loss_fn):
        model.train()
        losses = []
        for x, y in batches:
            if mistake != "zero_grad_last":
                optimizer.zero_grad()
            out = model(x)
            loss = loss_fn(out.detach() if mistake == "detached" else out, y)
            loss.backward()
            optimizer.step()
            if mistake == "zero_grad_last":
                optimizer.zero_grad()
            if mistake == "loss_after_step":
                loss = loss_fn(model(x), y)
            losses.append(loss.item())
        return sum(losses) / len(losses)

    return train_one_epoch


def loop_no_grad(model, batches, optimizer, loss_fn):
    """The evaluation loop's torch.no_grad() copied into the training loop."""
    model.train()
    total, n = 0.0, 0
    with torch.no_grad():
        for x, y in batches:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total, n = total + loss.item(), n + 1
    return total / n


TOE_WRONG = [
    wrong(TOE, "loss_on_detached_output", loop("detached"), "graph"),
    wrong(TOE, "under_no_grad", loop_no_grad, "graph"),
    wrong(TOE, "loss_recomputed_after_step", loop("loss_after_step"), "once per batch"),
]
TOE_OK = [right(TOE, "zero_grad_at_the_end", loop("zero_grad_last"))]

# --------------------------------------------------------------------- 07.TransformerDecoderBlock


class FFNDropoutLast(FeedForward):
    """nanoGPT's MLP order: c_fc, gelu/relu, c_proj, then dropout (after linear2)."""

    def forward(self, x):
        return self.dropout(self.linear2(self.activation(self.linear1(x))))


def decoder_with(attn_dropout=True, ffn_dropout=True, residual="before_sum", ln="ours",
                 ffn=FeedForward):  # fmt: skip
    class Block(TransformerDecoderBlock):
        def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
            super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
            pa, pf = (dropout if attn_dropout else 0.0), (dropout if ffn_dropout else 0.0)
            self.self_attn = MultiHeadAttention(d_model, num_heads, pa)
            self.cross_attn = MultiHeadAttention(d_model, num_heads, pa)
            self.ffn = ffn(d_model, d_ff, pf)

        def norm(self, name, h):
            n = getattr(self, name)
            if ln == "annotated":  # a_2 * (x - mean) / (std + eps) + b_2, unbiased std
                std = h.std(-1, keepdim=True)
                return n.weight * (h - h.mean(-1, keepdim=True)) / (std + 1e-6) + n.bias
            return n(h)

        def forward(self, x, memory, tgt_mask=None, memory_mask=None):
            subs = [
                ("norm1", lambda h: self.self_attn(h, mask=tgt_mask)[0]),
                ("norm2", lambda h: self.cross_attn(h, memory, memory, mask=memory_mask)[0]),
                ("norm3", self.ffn),
            ]
            for name, f in subs:
                if residual == "none":
                    drop = lambda t: t  # noqa: E731
                else:
                    drop = self.dropout
                if not self.norm_first:
                    x = self.norm(name, x + drop(f(x)))
                elif residual == "after_sum":
                    x = drop(x + f(self.norm(name, x)))
                else:
                    x = x + drop(f(self.norm(name, x)))
            return x

    return Block


DB_WRONG = [
    wrong(DB, "attention_without_dropout", decoder_with(attn_dropout=False), "attention weights"),
    wrong(DB, "ffn_built_without_dropout", decoder_with(ffn_dropout=False), "feed-forward"),
    wrong(DB, "no_residual_dropout", decoder_with(residual="none"), "dropout"),
    wrong(DB, "no_dropout_anywhere", decoder_with(False, False, "none"), "no dropout"),
    wrong(
        DB, "dropout_after_residual_sum", decoder_with(residual="after_sum"), "after the residual"
    ),
    wrong(DB, "annotated_transformer_layernorm", decoder_with(ln="annotated"), "std"),
]
DB_OK = [right(DB, "dropout_as_the_text_says", decoder_with())]

# ----------------------------------------------------------------------------- 07.greedy_decode


@torch.no_grad()
def annotated_greedy_decode(model, src, max_len, bos_id, eos_id):
    """The Annotated Transformer's greedy_decode, adapted to a batch: max_len - 1 steps, no EOS."""
    ys = torch.full((src.size(0), 1), bos_id, dtype=src.dtype, device=src.device)
    for _ in range(max_len - 1):
        prob = model(src, ys)[:, -1]
        _, next_word = torch.max(prob, dim=1)
        ys = torch.cat([ys, next_word[:, None]], dim=1)
    return ys


@torch.no_grad()
def argmax_over_time(model, src, max_len, bos_id, eos_id):
    """argmax over the wrong dimension (time), then the last entry."""
    tgt = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    while tgt.size(1) < max_len and not (tgt == eos_id).any(1).all():
        nxt = model(src, tgt).argmax(1)[:, -1]
        done = (tgt == eos_id).any(1)
        tgt = torch.cat([tgt, torch.where(done, eos_id, nxt)[:, None]], 1)
    return tgt


@torch.no_grad()
def softmax_then_argmax(model, src, max_len, bos_id, eos_id):
    """Correct, written differently: softmax probabilities, topk(1), a Python list of steps."""
    steps = [torch.full((src.size(0),), bos_id, dtype=torch.long, device=src.device)]
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    while len(steps) < max_len and not done.all():
        probs = F.softmax(model(src, torch.stack(steps, 1))[:, -1], dim=-1)
        nxt = probs.topk(1, dim=-1).indices[:, 0].masked_fill(done, eos_id)
        steps.append(nxt)
        done = done | (nxt == eos_id)
    return torch.stack(steps, 1)


GD_WRONG = [
    wrong(GD, "annotated_transformer_no_eos", annotated_greedy_decode, "eos"),
    wrong(GD, "argmax_over_time", argmax_over_time, "argmax"),
]
GD_OK = [right(GD, "softmax_topk", softmax_then_argmax)]

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    ENC_WRONG + TOE_WRONG + DB_WRONG + GD_WRONG, ENC_OK + TOE_OK + DB_OK + GD_OK
)


def test_mistake_codes():
    """Mistake codes (issue 13) are stable: the gradebook counts them."""
    cases = [
        (ENC, encoder_with(block_dropout=False), "blocks_without_dropout"),
        (DB, decoder_with(ffn_dropout=False), "no_ffn_inner_dropout"),
        (GD, annotated_greedy_decode, "eos_ignored"),
        (TOE, loop("loss_after_step"), "loss_calls_per_batch"),
    ]
    for exercise, candidate, slug in cases:
        result = check(exercise, candidate, quiet=True)
        assert result.mistake == f"{exercise}/{slug}", (result.mistake, result.messages)
