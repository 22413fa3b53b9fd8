"""Checks of notebook 03: the solution passes, other correct modules pass, the stub is
'not implemented', and each named mistake fails with its own message."""

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks import module_of
from helpers.checks.framework import randn
from helpers.checks.references import mha64
from helpers.checks.weights import random_state

from .conftest import stub

MHA = "03.MultiHeadAttention"
mha_ref64 = module_of(MHA).mha_ref64


class Configurable(nn.Module):
    """The solution, with class attributes that switch on one mistake each (the catalogued ones:
    tests/checks/test_catalogue.py)."""

    average_weights = False
    dropout_on = "weights"

    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split(self, x):
        B, T, d = x.shape
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, d = query.shape
        q, k = self.split(self.q_proj(query)), self.split(self.k_proj(key))
        v = self.split(self.v_proj(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        w = scores.softmax(-1)
        if self.dropout_on == "weights":
            w = self.dropout(w)
        out = self.out_proj((w @ v).transpose(1, 2).reshape(B, T_q, d))
        return out, (w.mean(1) if self.average_weights else w)


def variant(**attrs):
    return type("Variant", (Configurable,), attrs)


def test_solution_passes(run_check):
    r = run_check(MHA, Configurable)
    assert r.passed and r.points == r.max_points == 4, r.messages


def test_exported_block_passes(run_check):
    from helpers.blocks import MultiHeadAttention

    assert run_check(MHA, MultiHeadAttention).passed


class Fused(nn.Module):
    """The production variant: one matmul for q, k and v (weights kept under the contract's
    names), einsum attention with an additive float mask of -1e9."""

    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.h = num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Linear(d_model, d_model, bias=bias) for _ in range(4)
        )
        self.p = dropout

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, d = query.shape
        if key is query and value is query:
            weight = torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight])
            bias = (
                None
                if self.q_proj.bias is None
                else torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias])
            )
            q, k, v = F.linear(query, weight, bias).chunk(3, dim=-1)
        else:
            q, k, v = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        q, k, v = (t.unflatten(-1, (self.h, -1)).permute(0, 2, 1, 3) for t in (q, k, v))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores + (~mask).to(scores.dtype) * -1e9
        w = F.dropout(scores.softmax(-1), self.p, self.training)
        out = torch.einsum("bhqk,bhkd->bqhd", w, v).flatten(2)
        return self.out_proj(out), w


def test_fused_einsum_variant_passes(run_check):
    r = run_check(MHA, Fused)
    assert r.passed, r.messages


def test_stub(run_check):
    class Stub(nn.Module):
        def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
            super().__init__()
            stub()

    r = run_check(MHA, Stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_stub_forward(run_check):
    r = run_check(MHA, variant(forward=lambda self, *a, **k: stub()))
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "attrs, words",
    [
        ({"average_weights": True}, "not their average"),
        ({"dropout_on": "nowhere"}, "there is no dropout"),
    ],
)
def test_mistakes(run_check, attrs, words):
    r = run_check(MHA, variant(**attrs))
    assert not r.passed
    assert words in r.messages[0], r.messages


class Renamed(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.W_q, self.W_k, self.W_v, self.W_o = (
            nn.Linear(d_model, d_model, bias=bias) for _ in range(4)
        )


class PerHeadLayers(Configurable):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__(d_model, num_heads, dropout, bias)
        self.q_proj = nn.Linear(d_model, d_model // num_heads, bias=bias)


class AlwaysBias(Configurable):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__(d_model, num_heads, dropout, True)


class ExtraFused(Configurable):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__(d_model, num_heads, dropout, bias)
        self.qkv = nn.Linear(d_model, 3 * d_model)


class NotAModule:
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        pass


@pytest.mark.parametrize(
    "candidate, words",
    [
        (Renamed, "no layer 'q_proj'"),
        (PerHeadLayers, "q_proj.weight has shape"),
        (AlwaysBias, "bias=False"),
        (ExtraFused, "parameters the contract does not have: qkv.bias, qkv.weight"),
        (NotAModule, "should build an nn.Module"),
    ],
)
def test_structure_mistakes(run_check, candidate, words):
    r = run_check(MHA, candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_builtin_mha_is_switched_off(run_check):
    class Wrapper(Configurable):
        def forward(self, query, key=None, value=None, mask=None):
            key = query if key is None else key
            mha = nn.MultiheadAttention(query.size(-1), self.num_heads, batch_first=True)
            return mha(query, key, key)

    r = run_check(MHA, Wrapper)
    assert not r.passed and "switched off" in r.messages[0], r.messages


def test_builtin_sdpa_is_switched_off(run_check):
    class Wrapper(Configurable):
        def forward(self, query, key=None, value=None, mask=None):
            q = self.split(self.q_proj(query))
            out = F.scaled_dot_product_attention(q, q, q)
            return out, out

    r = run_check(MHA, Wrapper)
    assert not r.passed and "switched off" in r.messages[0], r.messages


def torch_mha(state: dict, num_heads: int, query, key, value, mask):
    """nn.MultiheadAttention(batch_first=True) in float64 with ``state`` copied in (in_proj is
    q_proj, k_proj and v_proj stacked; its attn_mask means True = blocked, per batch x head)."""
    d_model, (B, T_q), T_k = query.size(-1), query.shape[:2], key.size(1)
    ref = nn.MultiheadAttention(d_model, num_heads, batch_first=True).double().eval()
    names = ("q_proj", "k_proj", "v_proj")
    with torch.no_grad():
        for kind in ("weight", "bias"):
            getattr(ref, f"in_proj_{kind}").copy_(torch.cat([state[f"{n}.{kind}"] for n in names]))
            getattr(ref.out_proj, kind).copy_(state[f"out_proj.{kind}"])
        blocked = ~mask.expand(B, num_heads, T_q, T_k).reshape(B * num_heads, T_q, T_k)
        return ref(
            query.double(),
            key.double(),
            value.double(),
            attn_mask=blocked,
            need_weights=True,
            average_attn_weights=False,
        )


def test_written_out_reference_equals_nn_multihead_attention():
    gen = torch.Generator().manual_seed(0)
    state = random_state(gen, 12)
    q, kv = randn(2, 4, 12, generator=gen), randn(2, 7, 12, generator=gen)
    mask = torch.rand(2, 1, 4, 7, generator=gen) < 0.7
    mask[..., 0] = True
    out, w = torch_mha(state, 3, q, kv, kv, mask)
    for out2, w2 in (mha64(state, 3, q, kv, kv, mask), mha_ref64(state, 3, q, kv, kv, mask)):
        assert torch.allclose(out, out2, atol=1e-12) and torch.allclose(w, w2, atol=1e-12)


def test_the_grouped_query_exercise_and_the_questions_have_their_own_file():
    """tests/checks/test_nb03_gqa.py tests these: the solution passes, each mistake is named."""
    text = (Path(__file__).parent / "test_nb03_gqa.py").read_text(encoding="utf-8")
    for exercise_id in ("03.GroupedQueryAttention", "03.q_param_count", "03.q_heads_params"):
        assert f'"{exercise_id}"' in text
