"""Checks of notebook 01: the solution passes, the stub is 'not implemented', mistakes are named."""

import math

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


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda x, dim=-1: x.exp() / x.exp().sum(dim, keepdim=True), "exp(1000) overflows"),
        (
            lambda x, dim=-1: (x - x.max()).exp() / (x - x.max()).exp().sum(dim, keepdim=True),
            "not the max of the whole tensor",
        ),
        (lambda x, dim=-1: softmax(x, -1), "over dim 2: use the `dim` argument"),
        (lambda x, dim=-1: (x - x.amax(dim, keepdim=True)).exp(), "do not sum to 1"),
        (
            lambda x, dim=-1: (x - x.amax()).exp() / (x - x.amax()).exp().sum(),
            "whole tensor sums to 1",
        ),
        (lambda x, dim=-1: torch.softmax(x, dim), "torch.softmax is switched off"),
        (lambda x, dim=-1: softmax(x, dim).log(), "log-softmax"),
    ],
)
def test_softmax_mistakes(run_check, candidate, words):
    r = run_check("01.softmax", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


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
        (lambda x: attention(x)[::-1], "wrong order"),
        (
            lambda x: (lambda w: (w @ x, w))(torch.softmax(x @ x.transpose(-2, -1), dim=-2)),
            "columns",
        ),
        (
            lambda x: (lambda w: (w @ x, w))(
                torch.softmax(x @ x.transpose(-2, -1) / math.sqrt(x.shape[-1]), -1)
            ),
            "divided by sqrt(d)",
        ),
        (lambda x: (lambda w: (w.transpose(-2, -1) @ x, w))(attention(x)[1]), "transposed weights"),
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
