"""00.relu, and the mistake codes (issue 13) of representative wrong versions of 00-02."""

import math

import pytest
import torch

from .conftest import stub
from .wrong.test_nb00_02 import (
    relu_inplace,
    relu_python_max,
    sdpa,
    softmax_with,
)


def test_relu_right_and_stub(run_check):
    assert run_check("00.relu", lambda x: x * (x > 0)).passed
    r = run_check("00.relu", lambda x: (_ for _ in ()).throw(NotImplementedError))
    assert r.status == "missing" and r.mistake == ""


@pytest.mark.parametrize(
    "exercise, candidate, code",
    [
        ("00.relu", relu_inplace, "changes_input"),
        ("00.relu", relu_python_max, "python_max"),
        ("01.softmax", softmax_with(shift=None), "no_shift"),
        ("01.softmax", softmax_with(shift="mean"), "shift_not_max"),
        ("01.softmax", softmax_with(keepdim=False), "sum_without_keepdim"),
        ("01.softmax", softmax_with(log=True), "log_softmax"),
        (
            "01.dot_product_attention",
            lambda x: (lambda w: (w @ x, w))((x @ x.mT / math.sqrt(x.size(-1))).softmax(-1)),
            "scaled",
        ),
        ("02.scaled_dot_product_attention", sdpa(transpose="all"), "dot_T"),
        ("02.causal_mask", lambda T, device=None: torch.ones(T, T).tril().bool(), "ignores_device"),
    ],
)
def test_mistake_codes(run_check, exercise, candidate, code):
    """Wrong versions the catalogues do not hold (theirs: tests/checks/test_catalogue.py)."""
    r = run_check(exercise, candidate)
    assert not r.passed and r.mistake == f"{exercise}/{code}", (r.mistake, r.messages)


def test_an_unnamed_mistake_has_no_code(run_check):
    r = run_check("00.relu", lambda x: x + 1)
    assert not r.passed and r.mistake == "" and "does not match" in r.messages[0]


# --------------------------------------------------------------------------- the stretch
# 00.pairwise_sq_dists, and the question 00.q_check_verdict

EX = "00.pairwise_sq_dists"


def centred(a, b):
    c = b.mean(dim=-2, keepdim=True)
    a, b = a - c, b - c
    return ((a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :] - 2 * a @ b.mT).clamp_min(
        0
    )


def differences(a, b):
    return ((a[..., :, None, :] - b[..., None, :, :]) ** 2).sum(-1)


def expansion(a, b, *, clamp=True):
    sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :] - 2 * a @ b.mT
    return sq.clamp_min(0) if clamp else sq


@pytest.mark.parametrize("candidate", [centred, differences])
def test_right_answers_pass(run_check, candidate):
    r = run_check(EX, candidate)
    assert r.passed and r.points == r.max_points == 2, r.messages


def test_stub_is_missing(run_check):
    assert run_check(EX, stub).status == "missing"


def no_clamp(a, b):
    c = b.mean(dim=-2, keepdim=True)
    return expansion(a - c, b - c, clamp=False)


@pytest.mark.parametrize(
    "candidate, code",
    [
        (expansion, "cancellation"),  # no common centre: points near 1000 lose their digits
        (no_clamp, "negative"),
        (lambda a, b: torch.cdist(a, b) ** 2, "forbidden_builtin"),
    ],
)
def test_slips_are_named(run_check, candidate, code):
    r = run_check(EX, candidate)
    assert not r.passed and r.mistake == f"{EX}/{code}", (r.mistake, r.messages)


def centred_with(a, b, *, centre_a, centre_b):
    """The centred expansion, a and b moved by their own centres (a mean, or 0) (the catalogued
    slips are tested from exercises/00/catalogue.py)."""
    return expansion(a - centre_a(a, b), b - centre_b(a, b))


def b_mean(a, b):
    return b.mean(dim=-2, keepdim=True)


def a_mean(a, b):
    return a.mean(dim=-2, keepdim=True)


def no_shift(a, b):
    return 0.0


def batch_transpose_0_1(a, b):
    c = b.mean(dim=-2, keepdim=True)
    a, b = a - c, b - c
    sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :]
    return (sq - 2 * a @ b.transpose(0, 1)).clamp_min(0)


def batch_mm(a, b):
    sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :]
    return (sq - 2 * torch.mm(a, b.transpose(-2, -1))).clamp_min(0)


@pytest.mark.parametrize(
    "candidate, code, words",
    [
        (lambda a, b: centred_with(a, b, centre_a=a_mean, centre_b=b_mean),
         "not_common_shift", "a and b are each moved by their own mean"),
        (lambda a, b: centred_with(a, b, centre_a=b_mean, centre_b=no_shift),
         "not_common_shift", "a is moved by b's mean and b is not"),
        (batch_transpose_0_1, "batch_transpose", "b.transpose(0, 1) swaps the first two dims"),
        (batch_mm, "batch_dims", "passed the 2-D cases"),
    ],
)  # fmt: skip
def test_centred_slips_are_named(run_check, candidate, code, words):
    r = run_check(EX, candidate)
    assert not r.passed and r.mistake == f"{EX}/{code}", (r.mistake, r.messages)
    assert words in r.messages[0], r.messages


def test_cancellation_says_what_to_do(run_check):
    message = run_check(EX, expansion).messages[0]
    assert "far from the origin" in message and "common centre" in message


@pytest.mark.parametrize("letter", ["a", "c", "d"])
def test_question_wrong_choices(run_check, letter):
    r = run_check("00.q_check_verdict", letter)
    assert not r.passed and r.mistake == "00.q_check_verdict/wrong_choice", r.messages
    assert "a check runs your code on its cases" not in r.messages[0]


def test_question_right_choice(run_check):
    r = run_check("00.q_check_verdict", " B ")
    assert r.passed and r.points == 0.5 and "never raises" in r.messages[0]
