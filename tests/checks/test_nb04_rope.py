"""Checks of 04.apply_rope and of notebook 04's questions: the solution and correct alternates
pass, each slip a learner makes is named, the reference has RoPE's relative-position property."""

import math

import pytest
import torch

from helpers.checks import EXERCISES, evaluate, module_of
from helpers.checks.run.runner import run_probe

from .conftest import stub

rope64 = module_of("04.apply_rope").rope64


def make_rope(
    power=lambda two_i, d: two_i / d,
    rotate=lambda a, b, cos, sin: (a * cos - b * sin, a * sin + b * cos),
    start=0,
    T_dim=-2,
    write=lambda ra, rb: (ra, rb),
):
    """apply_rope with one piece replaced (the defaults are the right ones)."""

    def apply_rope(x, base=10000.0):
        T, d = x.shape[T_dim], x.shape[-1]
        two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
        pos = torch.arange(start, start + T, dtype=x.dtype, device=x.device)[:, None]
        angles = pos * base ** (-power(two_i, d))
        cos, sin = angles.cos(), angles.sin()
        ra, rb = write(*rotate(x[..., 0::2], x[..., 1::2], cos, sin))
        return torch.stack([ra, rb], dim=-1).flatten(-2)

    return apply_rope


def rope_complex(x, base=10000.0):
    """A correct alternate: each pair as a complex number times e^(i theta) (Meta's LLaMA)."""
    T, d = x.shape[-2], x.shape[-1]
    w = base ** (-torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)
    angles = torch.arange(T, dtype=x.dtype, device=x.device)[:, None] * w  # (T, d // 2)
    z = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angles), angles)).flatten(-2)


def rope_matrix(x, base=10000.0):
    """A correct alternate: one 2 x 2 rotation matrix per position and pair, einsum."""
    T, d = x.shape[-2], x.shape[-1]
    i = torch.arange(d // 2, dtype=x.dtype, device=x.device)
    t = torch.arange(T, dtype=x.dtype, device=x.device)[:, None] / base ** (2 * i / d)
    R = torch.stack([torch.stack([t.cos(), -t.sin()], -1), torch.stack([t.sin(), t.cos()], -1)], -2)
    pairs = x.unflatten(-1, (d // 2, 2))  # (..., T, d // 2, 2)
    return torch.einsum("tpij,...tpj->...tpi", R, pairs).flatten(-2)


def test_solution_and_alternates_pass(run_check):
    for candidate in (make_rope(), rope_complex, rope_matrix):
        r = run_check("04.apply_rope", candidate)
        assert r.passed and r.points == r.max_points == 2, r.messages


def test_stub_is_missing(run_check):
    assert run_check("04.apply_rope", stub).status == "missing"


def test_angles_that_do_not_broadcast_are_named(run_check):
    """(The catalogue's mistakes: tests/checks/test_catalogue.py.)"""
    r = run_check("04.apply_rope", make_rope(T_dim=1))
    assert not r.passed and r.mistake == "04.apply_rope/angles_shape", r.messages


def test_an_unknown_slip_is_told_which_property_breaks(run_check):
    half = make_rope(rotate=lambda a, b, c, s: (a * c - b * s, b))  # the second half forgotten
    assert run_check("04.apply_rope", half).mistake == "04.apply_rope/not_a_rotation"
    other = make_rope(power=lambda two_i, d: 0.9 * two_i / d)
    r = run_check("04.apply_rope", other)
    assert r.mistake == "04.apply_rope/wrong_frequency" and "pair 1" in r.messages[0]


def test_position_0_with_each_pair_swapped_is_said(run_check):
    """Swapped pairs and a slip no variant has (a wrong frequency): position 0 still comes back
    as x with each pair's two features swapped, and the message says that."""
    both = make_rope(power=lambda two_i, d: 0.9 * two_i / d, write=lambda ra, rb: (rb, ra))
    r = run_check("04.apply_rope", both)
    assert r.mistake == "04.apply_rope/pair_features_swapped", r.messages
    assert "each pair (2i, 2i+1) swapped" in r.messages[0], r.messages
    other = make_rope(start=1, power=lambda two_i, d: 0.9 * two_i / d)  # changed, not swapped
    assert run_check("04.apply_rope", other).mistake == "04.apply_rope/position_0_changed"


def test_reference_scores_depend_on_the_offset_only():
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 32, generator=gen, dtype=torch.float64)
    rq, rk = rope64(q.expand(120, 32)), rope64(k.expand(120, 32))
    assert torch.isclose(rq[3] @ rk[10], rq[103] @ rk[110], atol=1e-9)
    assert not torch.isclose(rq[3] @ rk[10], rq[3] @ rk[11], atol=1e-3)
    assert torch.allclose(rope64(q[None])[0], q)  # position 0 unchanged


# --------------------------------------------------------------------------- questions


def answer(exercise_id, value):
    ex = EXERCISES[exercise_id]
    probes = list(ex.probes(torch.Generator()))
    return evaluate(ex, [(p, run_probe(ex, p, value, torch.device("cpu"))) for p in probes])


@pytest.mark.parametrize("letter", ["a", "c", "d"])
def test_permutation_question_wrong_choices(letter):
    r = answer("04.q_permutation", letter)
    assert r.mistake == "04.q_permutation/wrong_choice" and '"b"' not in r.messages[0]


def test_permutation_question_right_choice():
    assert answer("04.q_permutation", "b").passed


def test_period_question():
    for right in (11.17, 11.2, 2 * math.pi * 10000 ** (4 / 64)):
        assert answer("04.q_period", right).passed
    r = answer("04.q_period", 1.78)
    assert r.mistake == "04.q_period/known_wrong_number" and "2π" in r.messages[0]
    assert answer("04.q_period", 12.9).mistake == "04.q_period/known_wrong_number"
    assert answer("04.q_period", 6.28).mistake == "04.q_period/known_wrong_number"
    assert answer("04.q_period", 63.0).mistake == "04.q_period/wrong_number"
