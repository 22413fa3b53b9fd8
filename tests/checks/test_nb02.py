"""Checks of notebook 02: the solution passes, other correct answers pass, the stub is
'not implemented', and each named mistake fails with its own message."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.nn.functional import scaled_dot_product_attention as imported_sdpa

from .conftest import stub

SDPA = "02.scaled_dot_product_attention"


def sdpa(q, k, v, mask=None):
    """The solution (its known mistakes: helpers/checks/exercises/02/catalogue.py, tested in
    test_catalogue.py)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, None, :]


# --------------------------------------------------------------------------- attention


def test_sdpa_solution_passes(run_check):
    r = run_check(SDPA, sdpa)
    assert r.passed and r.points == r.max_points == 3, r.messages


def test_sdpa_exported_block_passes(run_check):
    from helpers.blocks.attention import scaled_dot_product_attention

    assert run_check(SDPA, scaled_dot_product_attention).passed


def einsum_sdpa(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) * q.shape[-1] ** -0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, -1e9))
    w = torch.softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", w, v), w


def additive_sdpa(q, k, v, mask=None):
    scores = (q / math.sqrt(q.size(-1))) @ k.mT
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(
            ~mask, float("-inf")
        )
        scores = scores + bias
    w = F.softmax(scores, dim=-1)
    return w @ v, w


def renormalized_after_softmax(q, k, v, mask=None):
    # masking after softmax is right when the rows are renormalized (and no NaN appears)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    if mask is not None:
        w = w * mask
        w = w / w.sum(-1, keepdim=True)
    return w @ v, w


@pytest.mark.parametrize("candidate", [einsum_sdpa, additive_sdpa, renormalized_after_softmax])
def test_sdpa_written_differently_passes(run_check, candidate):
    r = run_check(SDPA, candidate)
    assert r.passed, r.messages


def test_sdpa_stub(run_check):
    r = run_check(SDPA, stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask)[0], "should return a tuple"),
        (
            lambda q, k, v, mask=None: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
            "switched off",
        ),
        (
            lambda q, k, v, mask=None: torch._C._nn.scaled_dot_product_attention(q, k, v),
            "switched off",
        ),
    ],
)
def test_sdpa_not_a_catalogued_mistake(run_check, candidate, words):
    r = run_check(SDPA, candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def sneaky(q, k, v, mask=None):
    out = imported_sdpa(q, k, v, attn_mask=mask)
    return out, torch.zeros(*out.shape[:-1], k.shape[-2])


def test_sdpa_imported_builtin_is_caught(run_check):
    r = run_check(SDPA, sneaky)
    assert (
        not r.passed and "uses torch.nn.functional.scaled_dot_product_attention" in r.messages[0]
    ), r.messages


# --------------------------------------------------------------------------- masks


def test_causal_mask_solution_passes(run_check):
    assert run_check("02.causal_mask", causal_mask).passed


def test_causal_mask_written_differently_passes(run_check):
    def by_comparison(T, device=None):
        i = torch.arange(T, device=device)
        return i[None, :] <= i[:, None]

    assert run_check("02.causal_mask", by_comparison).passed


def test_causal_mask_stub(run_check):
    r = run_check("02.causal_mask", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_causal_mask_not_a_tensor(run_check):
    r = run_check("02.causal_mask", lambda T, device=None: causal_mask(T, device).tolist())
    assert not r.passed and "should be a torch.Tensor" in r.messages[0], r.messages


def test_padding_mask_solution_passes(run_check):
    assert run_check("02.padding_mask", padding_mask).passed


def test_padding_mask_written_differently_passes(run_check):
    assert run_check("02.padding_mask", lambda t, p: t.ne(p).unsqueeze(1).unsqueeze(2)).passed


def test_padding_mask_stub(run_check):
    r = run_check("02.padding_mask", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_failed_mask_carries_expected_and_got_for_the_inline_figure():
    from helpers import check

    def triu(T, device=None):
        return torch.ones(T, T, dtype=torch.bool, device=device).triu()

    r = check("02.causal_mask", triu, quiet=True)
    expected, got = r.figure
    assert torch.equal(expected, got.T) and not torch.equal(expected, got)
    ok = check("02.causal_mask", lambda T, device=None: triu(T, device).T, quiet=True)
    assert ok.passed and ok.figure is None


# --------------------------------------------------------------------------- the stretch
# 02.attention_backward, and the questions 02.q_saturation and 02.q_empty_row

AB = "02.attention_backward"


def attention_backward(q, k, v, g, mask=None):
    """The solution (its slips: the catalogue's, tests/checks/test_catalogue.py)."""
    d_k = q.size(-1)
    scores = q @ k.mT / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = scores.softmax(-1)
    grad_w = g @ v.mT
    grad_s = w * (grad_w - (grad_w * w).sum(-1, keepdim=True)) / math.sqrt(d_k)
    return grad_s @ k, grad_s.mT @ q, w.mT @ g


def by_autograd_formulas_in_one_go(q, k, v, g, mask=None):
    """Correct, written otherwise: einsum and a finite fill."""
    w = torch.einsum("...qd,...kd->...qk", q, k) * q.size(-1) ** -0.5
    if mask is not None:
        w = torch.where(mask, w, torch.full_like(w, -1e9))
    w = w.softmax(-1)
    gw = torch.einsum("...qe,...ke->...qk", g, v)
    gs = w * gw - w * (w * gw).sum(-1, keepdim=True)
    gs = gs * q.size(-1) ** -0.5
    return (
        gs @ k,
        torch.einsum("...qk,...qd->...kd", gs, q),
        torch.einsum("...qk,...qe->...ke", w, g),
    )


@pytest.mark.parametrize("candidate", [attention_backward, by_autograd_formulas_in_one_go])
def test_attention_backward_right_answers_pass(run_check, candidate):
    r = run_check(AB, candidate)
    assert r.passed and r.points == r.max_points == 3, r.messages


def test_attention_backward_matches_autograd():
    q, k, v = (torch.randn(2, 5, 4, dtype=torch.float64, requires_grad=True) for _ in range(3))
    g = torch.randn(2, 5, 4, dtype=torch.float64)
    mask = causal_mask(5)
    sdpa(q, k, v, mask)[0].backward(g)
    mine = attention_backward(q.detach(), k.detach(), v.detach(), g, mask)
    assert all(torch.allclose(a, t.grad) for a, t in zip(mine, (q, k, v)))


def test_attention_backward_stub(run_check):
    assert run_check(AB, stub).status == "missing"


def q_and_k_swapped(q, k, v, g, mask=None):
    grad_q, grad_k, grad_v = attention_backward(q, k, v, g, mask)
    return grad_k, grad_q, grad_v


def autograd_cheat(q, k, v, g, mask=None):
    q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    sdpa(q, k, v, mask)[0].backward(g)
    return q.grad, k.grad, v.grad


@pytest.mark.parametrize(
    "candidate, code",
    [
        (autograd_cheat, "forbidden_builtin"),
        (lambda q, k, v, g, mask=None: attention_backward(q, k, v, g, mask)[:2], "not_a_tuple"),
        (
            lambda q, k, v, g, mask=None: attention_backward(q, k, v, g, mask)[::-1],
            "swapped_outputs",
        ),
        (q_and_k_swapped, "swapped_outputs"),
    ],
)
def test_attention_backward_other_slips(run_check, candidate, code):
    r = run_check(AB, candidate)
    assert not r.passed and r.mistake == f"{AB}/{code}", (r.mistake, r.messages)


@pytest.mark.parametrize("question, right", [("02.q_saturation", "c"), ("02.q_empty_row", "c")])
def test_questions(run_check, question, right):
    r = run_check(question, right)
    assert r.passed and r.points == 0.5
    for letter in "abcd".replace(right, ""):
        wrong = run_check(question, letter)
        assert (
            wrong.mistake == f"{question}/wrong_choice" and r.messages[0] not in wrong.messages[0]
        )
