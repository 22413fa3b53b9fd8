"""Wrong versions of the exercises of notebooks 06-07 (issue 12 catalogue)."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers.blocks.decoder import TransformerDecoderBlock
from helpers.blocks.encoder import TransformerEncoder
from helpers.blocks.layers import TransformerEncoderBlock

from ._common import make_tests, right, wrong

# -------------------------------------------------------------------------- 06.TransformerEncoder

ENC = "06.TransformerEncoder"


class EncVariant(TransformerEncoder):
    scale = "sqrt"
    final_norm = True
    pass_mask = True
    positions = True

    def embed(self, tokens):
        e = self.embedding(tokens)
        e = e * {"sqrt": math.sqrt(self.d_model), "none": 1.0, "d_model": self.d_model}[self.scale]
        return self.pos_encoding(e) if self.positions else e

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, mask if self.pass_mask else None)
        return self.norm(x) if self.final_norm else x


def enc(**changes):
    return type("TransformerEncoder", (EncVariant,), changes)


class EncSharedLayer(TransformerEncoder):
    """One block used num_layers times (nn.ModuleList([block] * n))."""

    def __init__(
        self,
        vocab_size,
        d_model,
        num_heads,
        num_layers,
        d_ff,
        max_len=512,
        dropout=0.0,
        norm_first=True,
    ):
        super().__init__(
            vocab_size, d_model, num_heads, num_layers, d_ff, max_len, dropout, norm_first
        )
        self.layers = nn.ModuleList([self.layers[0]] * num_layers)


class EncNormFirstDropped(TransformerEncoder):
    def __init__(
        self,
        vocab_size,
        d_model,
        num_heads,
        num_layers,
        d_ff,
        max_len=512,
        dropout=0.0,
        norm_first=True,
    ):
        super().__init__(
            vocab_size, d_model, num_heads, num_layers, d_ff, max_len, dropout, norm_first
        )
        self.layers = nn.ModuleList(
            [TransformerEncoderBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]
        )


class EncMapsWithoutNorm(TransformerEncoder):
    @torch.no_grad()
    def attention_maps(self, tokens):
        x, maps = self.embed(tokens), []
        for layer in self.layers:
            maps.append(layer.self_attn(x)[1])  # forgets norm1 in pre-LN
            x = layer(x)
        return maps


class EncPowHalf(TransformerEncoder):
    """Correct, written differently: d_model ** 0.5 and a running loop."""

    def embed(self, tokens):
        return self.pos_encoding(self.embedding(tokens) * self.d_model**0.5)


ENC_WRONG = [
    wrong(ENC, "embedding_not_scaled", enc(scale="none"), "sqrt"),
    wrong(
        ENC,
        "embedding_scaled_by_d_model",
        enc(scale="d_model"),
        "sqrt",
    ),
    wrong(ENC, "no_final_norm", enc(final_norm=False), "norm"),
    wrong(ENC, "mask_not_passed", enc(pass_mask=False), "mask"),
    wrong(ENC, "no_positional_encoding", enc(positions=False), "pos"),
    wrong(ENC, "one_block_shared", EncSharedLayer, "shar"),
    wrong(ENC, "norm_first_not_passed", EncNormFirstDropped, "norm_first"),
    wrong(ENC, "attention_maps_without_norm1", EncMapsWithoutNorm, "norm1"),
]
ENC_OK = [right(ENC, "pow_half", EncPowHalf)]

# ----------------------------------------------------------------------------- 06.train_one_epoch

TOE = "06.train_one_epoch"


def loop(mistake=""):
    def train_one_epoch(model, batches, optimizer, loss_fn):
        if mistake != "eval_mode":
            model.train()
        losses = []
        for inputs, targets in batches:
            if mistake != "no_zero_grad":
                optimizer.zero_grad()
            out = model(inputs)
            loss = loss_fn(targets, out) if mistake == "args_swapped" else loss_fn(out, targets)
            loss.backward()
            if mistake == "zero_grad_before_step":
                optimizer.zero_grad()
            if mistake != "no_step":
                optimizer.step()
            losses.append(loss if mistake == "tensor_losses" else loss.item())
        if mistake == "last_loss":
            return losses[-1]
        if mistake == "sum":
            return sum(losses)
        return sum(losses) / len(losses)

    return train_one_epoch


def loop_enumerate(model, batches, optimizer, loss_fn):
    """Correct, written differently: enumerate and a running total."""
    model.train()
    total, n = 0.0, 0
    for n, (x, y) in enumerate(batches, start=1):  # noqa: B007 (n is the count after the loop)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / n


TOE_WRONG = [
    wrong(TOE, "no_zero_grad", loop("no_zero_grad"), "zero_grad"),
    wrong(TOE, "zero_grad_between_backward_and_step", loop("zero_grad_before_step"), "zero_grad"),
    wrong(TOE, "no_step", loop("no_step"), "step"),
    wrong(TOE, "returns_last_loss", loop("last_loss"), "mean"),
    wrong(TOE, "returns_sum", loop("sum"), "sum"),
    wrong(TOE, "returns_a_tensor", loop("tensor_losses"), "float"),
    wrong(TOE, "eval_mode", loop("eval_mode"), "train"),
    wrong(
        TOE,
        "loss_fn_args_swapped",
        loop("args_swapped"),
        "loss_fn",
    ),
]
TOE_OK = [right(TOE, "enumerate", loop_enumerate)]

# ----------------------------------------------------------------------------- 06.trained_encoder

TE = "06.trained_encoder"


class TransformerEncoder(nn.Module):
    """Named as the contract's encoder, for the test double below."""


class TokenClassifier(nn.Module):
    """The notebook's model's shape (the contract: `encoder`, a TransformerEncoder, and `head`)."""

    def __init__(self):
        super().__init__()
        self.encoder, self.head = TransformerEncoder(), nn.Identity()


class Sorter(TokenClassifier):
    """A test double for a trained model (not a trained model): one-hot logits of a rule."""

    def __init__(self, rule="sort", out="logits"):
        super().__init__()
        self.dummy = nn.Parameter(torch.zeros(()))
        self.rule, self.out = rule, out

    def forward(self, tokens):
        if self.rule == "sort":
            target = tokens.sort(dim=-1).values
        elif self.rule == "descending":
            target = tokens.sort(dim=-1, descending=True).values
        else:  # copy the input
            target = tokens
        if self.out == "ids":
            return target
        return F.one_hot(target, 10).float() + self.dummy  # (B, T, 10)


TE_WRONG = [
    wrong(TE, "another_model", nn.Sequential(nn.Embedding(10, 16), nn.Linear(16, 10)), "not the"),
    wrong(TE, "sorts_descending", Sorter(rule="descending"), "descending order"),
    wrong(TE, "copies_input", Sorter(rule="copy"), "copies its input"),
    wrong(TE, "returns_token_ids", Sorter(out="ids"), "logits"),
    wrong(
        TE, "a_function", lambda tokens: F.one_hot(tokens.sort(-1).values, 10).float(), "nn.module"
    ),
    wrong(TE, "the_class", Sorter, "class"),
    # issue 31: an oracle that ignores its weights is not a trained model
    wrong(TE, "oracle", Sorter(), "weights shuffled"),
]
TE_OK = []

# --------------------------------------------------------------------- 07.TransformerDecoderBlock

DB = "07.TransformerDecoderBlock"


class DBVariant(TransformerDecoderBlock):
    use_tgt_mask = True
    use_memory_mask = True
    cross_kv = "memory"
    queries_from_memory = False
    norm_memory = False
    ffn_dropout = True
    reuse_norm1 = False
    post_ln_form = "norm_of_sum"

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        tm = tgt_mask if self.use_tgt_mask else None
        mm = memory_mask if self.use_memory_mask else None
        n2 = self.norm1 if self.reuse_norm1 else self.norm2
        n3 = self.norm1 if self.reuse_norm1 else self.norm3

        def sa(h):
            return self.dropout(self.self_attn(h, mask=tm)[0])

        def ca(h):
            mem = n2(memory) if self.norm_memory else memory
            kv = h if self.cross_kv == "self" else mem
            if self.queries_from_memory:
                return self.dropout(self.cross_attn(mem, h, h, mask=None)[0])
            return self.dropout(self.cross_attn(h, kv, kv, mask=mm)[0])

        def ff(h):
            out = self.ffn(h)
            return self.dropout(out) if self.ffn_dropout else out

        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + ca(n2(x))
            return x + ff(n3(x))
        if self.post_ln_form == "sum_of_norm":
            x = x + self.norm1(sa(x))
            x = x + n2(ca(x))
            return x + n3(ff(x))
        x = self.norm1(x + sa(x))
        x = n2(x + ca(x))
        return n3(x + ff(x))


def dec(**changes):
    return type("TransformerDecoderBlock", (DBVariant,), changes)


class DBFunctionalDropout(TransformerDecoderBlock):
    """Correct, written differently: F.dropout and a loop over the three sublayers."""

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        p, t = self.dropout.p, self.training
        subs = [
            (self.norm1, lambda h: self.self_attn(h, mask=tgt_mask)[0]),
            (self.norm2, lambda h: self.cross_attn(h, memory, memory, mask=memory_mask)[0]),
            (self.norm3, self.ffn),
        ]
        for norm, f in subs:
            if self.norm_first:
                x = x + F.dropout(f(norm(x)), p, t)
            else:
                x = norm(x + F.dropout(f(x), p, t))
        return x


DB_WRONG = [
    wrong(DB, "tgt_mask_ignored", dec(use_tgt_mask=False), "tgt_mask"),
    wrong(DB, "memory_mask_ignored", dec(use_memory_mask=False), "memory_mask"),
    wrong(DB, "cross_attention_on_itself", dec(cross_kv="self"), "memory"),
    wrong(
        DB,
        "queries_from_memory",
        dec(queries_from_memory=True),
        "memory",
    ),
    wrong(DB, "memory_normalized", dec(norm_memory=True), "memory"),
    wrong(
        DB,
        "no_ffn_dropout",
        dec(ffn_dropout=False),
        "dropout",
    ),
    wrong(
        DB,
        "norm1_reused",
        dec(reuse_norm1=True),
        "norm1",
    ),
    wrong(
        DB,
        "post_ln_as_x_plus_ln_f",
        dec(post_ln_form="sum_of_norm"),
        "post",
    ),
]
DB_OK = [right(DB, "F.dropout_loop", DBFunctionalDropout)]

# ----------------------------------------------------------------------------- 07.greedy_decode

GD = "07.greedy_decode"


def decode(mistake=""):
    @torch.no_grad()
    def greedy_decode(model, src, max_len, bos_id, eos_id):
        B = src.size(0)
        tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
        done = torch.zeros(B, dtype=torch.bool, device=src.device)
        limit = max_len + 1 if mistake == "off_by_one" else max_len
        while tgt.size(1) < limit:
            logits = model(src, tgt)
            pos = 0 if mistake == "first_position" else -1
            if mistake == "sampling":
                g = torch.Generator(device="cpu").manual_seed(0)
                nxt = torch.multinomial(logits[:, pos].softmax(-1).cpu(), 1, generator=g)[:, 0].to(
                    src.device
                )
            else:
                nxt = logits[:, pos].argmax(-1)
            if mistake != "no_eos_padding":
                nxt = nxt.masked_fill(done, eos_id)
            tgt = torch.cat([tgt, nxt[:, None]], dim=1)
            done |= nxt == eos_id
            if mistake == "stops_at_first_row" and done.any():
                break
            if mistake != "never_stops" and done.all():
                break
        return tgt[:, 1:] if mistake == "no_bos" else tgt

    return greedy_decode


@torch.no_grad()
def decode_per_row(model, src, max_len, bos_id, eos_id):
    """Correct, written differently: one row at a time, Python lists."""
    rows = []
    for b in range(src.size(0)):
        out = [bos_id]
        while len(out) < max_len and out[-1] != eos_id:
            tgt = torch.tensor([out], device=src.device)
            out.append(int(model(src[b : b + 1], tgt)[0, -1].argmax()))
        rows.append(out)
    L = max(map(len, rows))
    return torch.tensor([r + [eos_id] * (L - len(r)) for r in rows], device=src.device)


@torch.no_grad()
def decode_max_indices(model, src, max_len, bos_id, eos_id):
    """Correct, written differently: .max(-1).indices, torch.where for finished rows."""
    tgt = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    while tgt.size(1) < max_len and not (tgt == eos_id).any(dim=1).all():
        best = model(src, tgt)[:, -1, :].max(dim=-1).indices  # (B,)
        finished = (tgt == eos_id).any(dim=1)
        tgt = torch.cat([tgt, torch.where(finished, eos_id, best)[:, None]], dim=1)
    return tgt


GD_WRONG = [
    wrong(GD, "no_bos", decode("no_bos"), "bos"),
    wrong(GD, "first_position", decode("first_position"), "last"),
    wrong(GD, "never_stops", decode("never_stops"), "eos"),
    wrong(GD, "stops_when_one_row_ends", decode("stops_at_first_row"), "every row"),
    wrong(GD, "no_eos_padding", decode("no_eos_padding"), "eos"),
    wrong(GD, "max_len_off_by_one", decode("off_by_one"), "max_len"),
    wrong(
        GD,
        "sampling",
        decode("sampling"),
        "argmax",
    ),
]
GD_OK = [
    right(
        GD,
        "per_row",
        decode_per_row,
    ),
    right(GD, "max_indices", decode_max_indices),
]

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    ENC_WRONG + TOE_WRONG + TE_WRONG + DB_WRONG + GD_WRONG,
    ENC_OK + TOE_OK + TE_OK + DB_OK + GD_OK,
)
