"""Checks of notebook 01: the solution passes, the stub is 'not implemented', mistakes are named."""

import pytest
import torch

from .conftest import stub


def softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)


def attention(x):
    w = softmax(x @ x.transpose(-2, -1), dim=-1)
    return w @ x, w


def test_softmax_solution_passes(run_check):
    r = run_check("01.softmax", softmax)
    assert r.passed and r.points == r.max_points == 2


def test_softmax_written_differently_passes(run_check):
    def logsumexp_style(x, dim=-1):
        m = x.max(dim=dim, keepdim=True).values
        return torch.exp(x - m - torch.log(torch.exp(x - m).sum(dim, keepdim=True)))

    assert run_check("01.softmax", logsumexp_style).passed


def test_softmax_stub(run_check):
    r = run_check("01.softmax", stub)
    assert not r.passed and r.status == "missing" and "not implemented yet" in r.messages[0]


def test_softmax_builtin_is_switched_off(run_check):
    r = run_check("01.softmax", lambda x, dim=-1: torch.softmax(x, dim))
    assert not r.passed and "torch.softmax is switched off" in r.messages[0], r.messages


def test_softmax_imported_builtin_is_caught(run_check):
    from torch.nn.functional import softmax as f_softmax

    def sneaky(x, dim=-1):
        return f_softmax(x, dim)

    r = run_check("01.softmax", sneaky)
    assert not r.passed and "switched off" in r.messages[0] or "uses" in r.messages[0]


def test_attention_solution_passes(run_check):
    assert run_check("01.dot_product_attention", attention).passed


def test_attention_einsum_passes(run_check):
    def einsum_attention(x):
        w = torch.softmax(torch.einsum("...id,...jd->...ij", x, x), dim=-1)
        return torch.einsum("...ij,...jd->...id", w, x), w

    assert run_check("01.dot_product_attention", einsum_attention).passed


def test_attention_stub(run_check):
    r = run_check("01.dot_product_attention", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda x: (lambda w: (w @ x, w))(torch.softmax(x @ x.T, -1)), "RuntimeError"),
        (lambda x: attention(x)[0], "should return a tuple"),
        (
            lambda x: (attention(x)[0].numpy(), attention(x)[1]),
            "should be a torch.Tensor, got numpy.ndarray",
        ),
    ],
)
def test_attention_mistakes(run_check, candidate, words):
    r = run_check("01.dot_product_attention", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- the stretch
# 01.softmax_backward, and the questions 01.q_dog_row and 01.q_permutation

SB = "01.softmax_backward"


def softmax_backward(y, grad_y, dim=-1):
    return y * (grad_y - (grad_y * y).sum(dim=dim, keepdim=True))


def test_softmax_backward_solution_passes(run_check):
    r = run_check(SB, softmax_backward)
    assert r.passed and r.points == r.max_points == 2, r.messages


def test_softmax_backward_matches_autograd():
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    g = torch.randn(3, 5, dtype=torch.float64)
    y = torch.softmax(x, dim=0)
    y.backward(g)
    assert torch.allclose(softmax_backward(y.detach(), g, dim=0), x.grad)


def test_softmax_backward_stub(run_check):
    assert run_check(SB, stub).status == "missing"


def autograd_cheat(y, grad_y, dim=-1):
    x = y.log().detach().requires_grad_(True)
    torch.softmax(x, dim).backward(grad_y)
    return x.grad


@pytest.mark.parametrize(
    "candidate, code, words",
    [
        (lambda y, g, dim=-1: y * ((g * y).sum(dim, keepdim=True) - g), "negated", "sign flipped"),
        (autograd_cheat, "forbidden_builtin", "switched off"),
    ],
)
def test_softmax_backward_slips_are_named(run_check, candidate, code, words):
    r = run_check(SB, candidate)
    assert not r.passed and r.mistake == f"{SB}/{code}", (r.mistake, r.messages)
    assert words in r.messages[0], r.messages


@pytest.mark.parametrize("question, right", [("01.q_dog_row", "b"), ("01.q_permutation", "b")])
def test_questions(run_check, question, right):
    r = run_check(question, right)
    assert r.passed and r.points == 0.5
    for letter in "abcd".replace(right, ""):
        wrong = run_check(question, letter)
        assert (
            wrong.mistake == f"{question}/wrong_choice" and r.messages[0] not in wrong.messages[0]
        )
