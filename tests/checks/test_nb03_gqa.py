"""Checks of 03.GroupedQueryAttention and of notebook 03's questions: the solution and correct
alternates pass, each slip a learner makes is named, the reference is multi-head attention when
num_kv_heads == num_heads."""

import pytest
import torch
from torch import nn

from helpers.blocks.attention import scaled_dot_product_attention
from helpers.checks import EXERCISES, evaluate, module_of
from helpers.checks.mistakes import program
from helpers.checks.references import mha64
from helpers.checks.run.runner import run_probe

from .conftest import stub

gqa64, gqa_state = (
    module_of("03.GroupedQueryAttention").gqa64,
    module_of("03.GroupedQueryAttention").gqa_state,
)


def make_gqa(
    kv_out=lambda d, h_kv, d_head: h_kv * d_head,
    repeat_k=lambda t, g: t.repeat_interleave(g, dim=1),
    use_bias=True,
    v_through="v_proj",
    weights_times_keys=False,
):
    """GroupedQueryAttention with one piece replaced (the defaults are the right ones)."""

    class GroupedQueryAttention(nn.Module):
        def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
            super().__init__()
            bias = bias if use_bias else True
            self.h, self.h_kv, self.d_head = num_heads, num_kv_heads, d_model // num_heads
            self.group = num_heads // num_kv_heads
            d_kv = kv_out(d_model, num_kv_heads, self.d_head)
            self.q_proj = nn.Linear(d_model, d_model, bias=bias)
            self.k_proj = nn.Linear(d_model, d_kv, bias=bias)
            self.v_proj = nn.Linear(d_model, d_kv, bias=bias)
            self.out_proj = nn.Linear(d_model, d_model, bias=bias)

        def split(self, x, heads):
            B, T, _ = x.shape
            return x.view(B, T, heads, -1).transpose(1, 2)

        def forward(self, query, key=None, value=None, mask=None):
            key = query if key is None else key
            value = key if value is None else value
            q = self.split(self.q_proj(query), self.h)
            k = repeat_k(self.split(self.k_proj(key), self.h_kv), self.group)
            v = repeat_k(self.split(getattr(self, v_through)(value), self.h_kv), self.group)
            v = k if weights_times_keys else v
            out, w = scaled_dot_product_attention(q, k, v, mask)
            B, _, T, _ = out.shape
            return self.out_proj(out.transpose(1, 2).reshape(B, T, query.size(-1))), w

    return GroupedQueryAttention


class GroupedByView(nn.Module):
    """A correct alternate: no repeat at all, the query heads viewed in groups against each kv
    head (as Llama's fast kernels do), weights reshaped to (B, H, T_q, T_k) at the end."""

    def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
        super().__init__()
        self.h, self.h_kv, self.d_head = num_heads, num_kv_heads, d_model // num_heads
        d_kv = num_kv_heads * self.d_head
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_kv, bias=bias)
        self.v_proj = nn.Linear(d_model, d_kv, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, d = query.shape
        T_k, g = key.size(1), self.h // self.h_kv
        q = self.q_proj(query).view(B, T_q, self.h_kv, g, self.d_head).permute(0, 2, 3, 1, 4)
        k = self.k_proj(key).view(B, T_k, self.h_kv, 1, self.d_head).permute(0, 2, 3, 1, 4)
        v = self.v_proj(value).view(B, T_k, self.h_kv, 1, self.d_head).permute(0, 2, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / self.d_head**0.5  # (B, H_kv, g, T_q, T_k)
        if mask is not None:
            m = mask if mask.dim() < 4 else mask[:, :, None]
            scores = scores.masked_fill(~m, float("-inf"))
        w = scores.softmax(-1)
        out = (w @ v).reshape(B, self.h, T_q, self.d_head).transpose(1, 2).reshape(B, T_q, d)
        return self.out_proj(out), w.reshape(B, self.h, T_q, T_k)


def expand_repeat(t, g):  # another right repeat: a new dim after the kv heads, expanded
    B, H_kv, T, d = t.shape
    return t[:, :, None].expand(B, H_kv, g, T, d).reshape(B, H_kv * g, T, d)


def test_solution_and_alternates_pass(run_check):
    for candidate in (make_gqa(), make_gqa(repeat_k=expand_repeat), GroupedByView):
        r = run_check("03.GroupedQueryAttention", candidate)
        assert r.passed and r.points == r.max_points == 3, r.messages


def test_stub_is_missing(run_check):
    class Stub(nn.Module):
        def __init__(self, *args, **kwargs):
            stub()

    assert run_check("03.GroupedQueryAttention", Stub).status == "missing"


@pytest.mark.parametrize(
    "candidate, code",
    [
        (make_gqa(kv_out=lambda d, h_kv, d_head: d), "kv_projection_full"),
        (make_gqa(use_bias=False), "bias_ignored"),
    ],
)
def test_mistakes_are_named(run_check, candidate, code):
    r = run_check("03.GroupedQueryAttention", candidate)
    assert not r.passed and r.mistake == f"03.GroupedQueryAttention/{code}", r.messages


@pytest.mark.parametrize(
    "candidate", [make_gqa(v_through="k_proj"), make_gqa(weights_times_keys=True)]
)
def test_keys_as_values_in_self_attention_is_said_as_two_slips(run_check, candidate):
    """key = value in the first case: the weights times k, and values through k_proj, agree."""
    r = run_check("03.GroupedQueryAttention", candidate)
    text = r.messages[0]
    assert not r.passed and r.mistake.split("/")[-1] not in (
        "weights_times_keys",
        "values_through_k_proj",
    ), text
    assert "and also projecting the values with k_proj" in text, text


@pytest.mark.parametrize("code", ["weights_times_keys", "values_through_k_proj"])
def test_keys_as_values_told_apart_when_key_is_not_value(code):
    from helpers.checks import EXERCISES
    from helpers.checks.framework import Fail

    ex = EXERCISES["03.GroupedQueryAttention"]
    gen = torch.Generator().manual_seed(0)
    probe = next(p for p in ex.probes(gen) if p.name.startswith("multi-query"))
    (x,), kw = probe.args, probe.kwargs
    H, H_kv = probe.init["num_heads"], probe.init["num_kv_heads"]
    wrong = program(gqa64, module_of("03.GroupedQueryAttention").KEYS_AS_VALUES[code][1])
    out = [t.float() for t in wrong(probe.state, H, H_kv, x, kw["key"], kw["value"])]
    with pytest.raises(Fail) as info:
        ex.judge(probe, tuple(out))
    assert info.value.code == code, str(info.value)


def test_reference_is_multi_head_attention_when_every_head_has_its_kv_head():
    gen = torch.Generator().manual_seed(0)
    state = gqa_state(gen, 12, 3, 3)
    x, mem = torch.randn(2, 5, 12, generator=gen), torch.randn(2, 7, 12, generator=gen)
    for a, b in zip(gqa64(state, 3, 3, x, mem, mem), mha64(state, 3, x, mem, mem)):
        assert torch.allclose(a, b, atol=1e-12)


def test_multi_query_reference_shares_one_kv_head():
    gen = torch.Generator().manual_seed(1)
    state = gqa_state(gen, 8, 4, 1)
    x = torch.randn(1, 4, 8, generator=gen)
    _, w = gqa64(state, 4, 1, x, x, x)
    k = (x.double() @ state["k_proj.weight"].double().T + state["k_proj.bias"].double())[0]
    for h in range(4):  # every query head reads the one key head
        q = x.double() @ state["q_proj.weight"].double().T + state["q_proj.bias"].double()
        q = q[0, :, 2 * h : 2 * h + 2]
        assert torch.allclose(w[0, h], (q @ k.T / 2**0.5).softmax(-1), atol=1e-12)


# --------------------------------------------------------------------------- questions


def answer(exercise_id, value):
    ex = EXERCISES[exercise_id]
    probes = list(ex.probes(torch.Generator()))
    return evaluate(ex, [(p, run_probe(ex, p, value, torch.device("cpu"))) for p in probes])


def test_param_count_question():
    assert answer("03.q_param_count", 263168).passed
    assert "out_proj" in answer("03.q_param_count", 3 * 256**2 + 3 * 256).messages[0]
    for wrong in (262144, 2105344, 33792, 263000):
        r = answer("03.q_param_count", wrong)
        assert not r.passed and r.mistake.split("/")[1] in ("known_wrong_number", "wrong_number")


@pytest.mark.parametrize("letter", ["a", "b", "d"])
def test_heads_question_wrong_choices(letter):
    r = answer("03.q_heads_params", letter)
    assert r.mistake == "03.q_heads_params/wrong_choice" and '"c"' not in r.messages[0]


def test_heads_question_right_choice():
    r = answer("03.q_heads_params", "c")
    assert r.passed and "does not depend on H" in r.messages[0]
