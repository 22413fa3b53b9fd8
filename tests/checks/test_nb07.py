"""Checks of notebook 07: the solution passes, the stub is 'not implemented', mistakes are named."""

from functools import partial

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention

from .conftest import stub


class DecoderBlock(nn.Module):
    """The solution, with switches for the mistakes the check names."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, mistake=""):
        super().__init__()
        self.norm_first, self.mistake = norm_first, mistake
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2, self.norm3 = (
            LayerNorm(d_model),
            LayerNorm(d_model),
            LayerNorm(d_model),
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        m = self.mistake
        if m == "ignore_tgt_mask":
            tgt_mask = None
        if m == "ignore_memory_mask":
            memory_mask = None
        if m == "inverted_tgt_mask" and tgt_mask is not None:
            tgt_mask = ~tgt_mask
        norm_first = (not self.norm_first) if m == "ignore_norm_first" else self.norm_first

        def norm(name, h):
            return h if m == f"skip_{name}" else getattr(self, name)(h)

        def sa(h):
            return self.self_attn(h, mask=tgt_mask)[0]

        def ca(h):
            if m == "cross_on_self":
                return self.cross_attn(h)[0]
            if m == "swap_query":
                return self.cross_attn(memory, h, h)[0]
            mem = self.norm2(memory) if m == "norm_memory" else memory
            return self.cross_attn(h, mem, mem, mask=memory_mask)[0]

        subs = [("norm1", sa), ("norm2", ca), ("norm3", self.ffn)]
        if m == "cross_first":  # the sublayers in another order
            subs = [subs[1], subs[0], subs[2]]
        if m == "swap_norm23":  # norm3 before cross-attention, norm2 before the feed-forward
            subs = [subs[0], ("norm3", ca), ("norm2", self.ffn)]
        for name, sub in subs:
            if m == "no_cross" and sub is ca:
                continue
            keep = 0.0 if m == f"no_residual_{name}" else 1.0
            if norm_first:
                x = keep * x + self.dropout(sub(norm(name, x)))
            else:
                x = norm(name, keep * x + self.dropout(sub(x)))
        return x


def block_with(mistake):
    def make(*args, **kwargs):
        return DecoderBlock(*args, mistake=mistake, **kwargs)

    return make


def test_decoder_block_solution_passes(run_check):
    r = run_check("07.TransformerDecoderBlock", DecoderBlock)
    assert r.passed, r.messages


def test_decoder_block_written_differently_passes(run_check):
    class Explicit(DecoderBlock):
        def forward(self, x, memory, tgt_mask=None, memory_mask=None):
            drop = partial(F.dropout, p=self.dropout.p, training=self.training)
            if self.norm_first:
                h = self.norm1(x)
                x = x + drop(self.self_attn(h, h, h, mask=tgt_mask)[0])
                x = x + drop(self.cross_attn(self.norm2(x), memory, memory, mask=memory_mask)[0])
                return x + drop(self.ffn(self.norm3(x)))
            x = self.norm1(x + drop(self.self_attn(x, mask=tgt_mask)[0]))
            x = self.norm2(x + drop(self.cross_attn(x, memory, memory, memory_mask)[0]))
            return self.norm3(x + drop(self.ffn(x)))

    assert run_check("07.TransformerDecoderBlock", Explicit).passed


def test_decoder_block_stub(run_check):
    r = run_check("07.TransformerDecoderBlock", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "mistake, words",
    [
        ("cross_on_self", "attends to the decoder itself"),
        ("swap_query", "size of tensor a (5) must match"),
        ("no_cross", "memory is not used"),
        ("ignore_norm_first", "norm_first is ignored"),
        ("norm_memory", "memory goes through norm2"),
        ("skip_norm1", "norm1 is missing"),
        ("skip_norm2", "norm2 is missing"),
        ("skip_norm3", "norm3 is missing"),
        ("no_residual_norm1", "residual around self-attention"),
        ("no_residual_norm3", "residual around feed-forward"),
        ("ignore_tgt_mask", "tgt_mask is ignored"),
        ("inverted_tgt_mask", "tgt_mask is inverted"),
        ("ignore_memory_mask", "memory_mask is ignored"),
        ("cross_first", "order cross-attention, self-attention, feed-forward"),
        ("swap_norm23", "norm3 for cross-attention, norm2 for feed-forward"),
    ],
)
def test_decoder_block_mistakes(run_check, mistake, words):
    r = run_check("07.TransformerDecoderBlock", block_with(mistake))
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_decoder_block_wrapping_pytorch_is_switched_off(run_check):
    class Wrapper(DecoderBlock):
        def forward(self, x, memory, tgt_mask=None, memory_mask=None):
            layer = nn.TransformerDecoderLayer(x.shape[-1], 2, 16, dropout=0.0, batch_first=True)
            return layer(x, memory)

    r = run_check("07.TransformerDecoderBlock", Wrapper)
    assert not r.passed and "switched off" in r.messages[0], r.messages


def test_decoder_block_wrong_names(run_check):
    class Renamed(DecoderBlock):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.mha = self.cross_attn
            del self.cross_attn

    r = run_check("07.TransformerDecoderBlock", Renamed)
    assert not r.passed and "cross_attn" in r.messages[0], r.messages


# --------------------------------------------------------------------------- greedy decoding


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.shape[0]
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.shape[1] < max_len:
        nxt = model(src, tgt)[:, -1].argmax(-1)
        nxt = nxt.masked_fill(done, eos_id)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return tgt


def test_greedy_solution_passes(run_check):
    r = run_check("07.greedy_decode", greedy_decode)
    assert r.passed, r.messages


def test_greedy_written_differently_passes(run_check):
    def per_row_lists(model, src, max_len, bos_id, eos_id):
        rows = [[bos_id] for _ in range(src.shape[0])]
        while len(rows[0]) < max_len and not all(eos_id in r for r in rows):
            tgt = torch.tensor(rows, device=src.device)
            best = model(src, tgt).argmax(dim=-1)[:, -1].tolist()
            for r, token in zip(rows, best):
                r.append(eos_id if eos_id in r else token)
        return torch.tensor(rows, device=src.device)

    assert run_check("07.greedy_decode", per_row_lists).passed


def test_greedy_stub(run_check):
    r = run_check("07.greedy_decode", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_greedy_float_output_and_overlong(run_check):
    r = run_check("07.greedy_decode", lambda *a: greedy_decode(*a).float())
    assert not r.passed and "LongTensor" in r.messages[0]

    def overlong(model, src, max_len, bos_id, eos_id):
        return greedy_decode(model, src, max_len + 3, bos_id, eos_id)

    r = run_check("07.greedy_decode", overlong)
    assert not r.passed and (
        "more than max_len" in r.messages[0] or "never stops" in r.messages[0]
    ), r.messages


def test_reference_decoder_with_fixed_dropout_equals_torch_layer_in_training_mode():
    """decoder64's dropout placements (the training-mode check's reference) are
    nn.TransformerDecoderLayer's: both in training mode with the check's fixed masks (PyTorch's
    attentions asked for their weights, so that their dropout goes through F.dropout)."""
    from helpers.checks import module_of

    decoder64 = module_of("07.TransformerDecoderBlock").decoder64
    torch_decoder_layer = module_of("07.TransformerDecoderBlock").torch_decoder_layer
    from helpers.checks.probes import fixed_drops
    from helpers.checks.run.modules import DROPOUT_SEED, dropout_fixed
    from helpers.checks.weights import DECODER_PARTS, block_state

    gen = torch.Generator().manual_seed(5)
    for norm_first in (True, False):
        state = block_state(gen, 8, 16, parts=DECODER_PARTS)
        layer = torch_decoder_layer(
            {"d_model": 8, "num_heads": 2, "d_ff": 16, "norm_first": norm_first}, state
        )
        for m in (layer.dropout, layer.dropout1, layer.dropout2, layer.dropout3):
            m.p = 0.3
        for attn in (layer.self_attn, layer.multihead_attn):
            attn.dropout = 0.3
            attn.forward = lambda *a, _f=attn.forward, **k: _f(*a, **{**k, "need_weights": True})
        x = torch.randn(2, 5, 8, generator=gen, dtype=torch.float64)
        memory = torch.randn(2, 7, 8, generator=gen, dtype=torch.float64)
        with dropout_fixed(DROPOUT_SEED) as calls, torch.no_grad():
            ref = layer(x, memory)
        assert len(calls) == 6
        drops = fixed_drops(0.3).block_kwargs()
        ours = decoder64(state, x, memory, 2, norm_first=norm_first, **drops)
        torch.testing.assert_close(ours, ref, atol=1e-10, rtol=1e-10)
        assert not torch.allclose(decoder64(state, x, memory, 2, norm_first=norm_first), ref)


def test_greedy_padding_finished_rows_with_zero_is_named(run_check):
    """Was told "a sample drawn with torch.multinomial" (issue 18)."""

    def greedy_decode(model, src, max_len, bos_id, eos_id):
        tgt = torch.full((src.shape[0], 1), bos_id, dtype=torch.long)
        done = torch.zeros(src.shape[0], dtype=torch.bool)
        for _ in range(max_len - 1):
            nxt = model(src, tgt)[:, -1].argmax(-1)
            nxt = torch.where(done, torch.zeros_like(nxt), nxt)  # pads finished rows with 0
            tgt = torch.cat([tgt, nxt[:, None]], 1)
            done |= nxt == eos_id
            if done.all():
                break
        return tgt

    r = run_check("07.greedy_decode", greedy_decode)
    assert r.mistake == "07.greedy_decode/pad_after_eos" and "multinomial" not in r.messages[0]


def test_decoder_masks_swapped_named(run_check):
    """Was told "the queries come from the decoder" (issue 18)."""
    from helpers.blocks.decoder import TransformerDecoderBlock as Reference

    class TransformerDecoderBlock(Reference):
        def forward(self, x, memory, tgt_mask=None, memory_mask=None):
            return super().forward(x, memory, tgt_mask=memory_mask, memory_mask=tgt_mask)

    r = run_check("07.TransformerDecoderBlock", TransformerDecoderBlock)
    assert r.mistake == "07.TransformerDecoderBlock/masks_swapped", r.messages


def test_the_exercises_tested_in_files_of_their_own_are_registered():
    """07.beam_search: tests/checks/test_nb07_beam.py; 07.q_decoder_positions:
    tests/checks/test_nb07_questions.py."""
    from pathlib import Path

    from helpers.checks import EXERCISES

    here = Path(__file__).parent
    for exercise, tests in [("07.beam_search", "test_nb07_beam.py"),
                            ("07.q_decoder_positions", "test_nb07_questions.py")]:  # fmt: skip
        assert exercise in EXERCISES and exercise in (here / tests).read_text(encoding="utf-8")
