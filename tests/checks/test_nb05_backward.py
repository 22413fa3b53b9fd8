"""Checks of 05.layer_norm_backward (LayerNorm's backward pass by hand): the solution and a
correct alternate pass, autograd is switched off (the catalogued slips: test_catalogue.py). The
stub is tested in test_nb05.py."""

import pytest
import torch
import torch.nn.functional as F

from helpers.checks import module_of

lnb64 = module_of("05.layer_norm_backward").lnb64

ID = "05.layer_norm_backward"


def _parts(x, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    std = torch.sqrt(var + eps)
    return (x - mean) / std, std


def layer_norm_backward(x, weight, grad_y, eps=1e-5, *, xhat_term=True, summed=()):
    """The course's formula, with a switch for two slips (the others: the catalogue's)."""
    d = x.shape[-1]
    x_hat, std = _parts(x, eps)
    g = grad_y * weight
    grad_x = g

    def mean(t, term):  # summed: the terms whose mean is taken as a sum
        return t.sum(dim=-1, keepdim=True) if term in summed else t.mean(dim=-1, keepdim=True)

    grad_x = grad_x - mean(g, "g")
    if xhat_term:
        grad_x = grad_x - x_hat * mean(g * x_hat, "x_hat")
    rows_w, rows_b = (grad_y * x_hat).reshape(-1, d), grad_y.reshape(-1, d)
    return grad_x / std, rows_w.sum(0), rows_b.sum(0)


def chain_rule(x, weight, grad_y, eps=1e-5):
    """A correct alternate, the step-by-step chain rule through mu and var (cs231n's way)."""
    d = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    var = (xc**2).mean(-1, keepdim=True)
    inv = 1.0 / torch.sqrt(var + eps)
    x_hat = xc * inv
    dx_hat = grad_y * weight
    dvar = (dx_hat * xc).sum(-1, keepdim=True) * -0.5 * inv**3
    dmu = -(dx_hat * inv).sum(-1, keepdim=True) - 2.0 * dvar * xc.mean(-1, keepdim=True)
    dx = dx_hat * inv + dvar * 2.0 * xc / d + dmu / d
    dims = tuple(range(x.dim() - 1))
    return dx, (grad_y * x_hat).sum(dim=dims), grad_y.sum(dim=dims)


def test_the_formula_is_autograds():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, 6, generator=gen, dtype=torch.float64).requires_grad_()
    w = (1 + torch.randn(6, generator=gen, dtype=torch.float64)).requires_grad_()
    b = torch.randn(6, generator=gen, dtype=torch.float64).requires_grad_()
    gy = torch.randn(3, 4, 6, generator=gen, dtype=torch.float64)
    for eps in (1e-5, 1.0):
        x.grad = w.grad = b.grad = None
        F.layer_norm(x, (6,), w, b, eps).backward(gy)
        for mine, auto in zip(lnb64(x.detach(), w.detach(), gy, eps), (x.grad, w.grad, b.grad)):
            assert torch.allclose(mine, auto, atol=1e-12)


@pytest.mark.parametrize("candidate", [layer_norm_backward, chain_rule])
def test_the_solution_and_an_alternate_pass(run_check, candidate):
    r = run_check(ID, candidate)
    assert r.passed and r.points == r.max_points, r.messages


def _slip(**switch):
    return lambda x, w, gy, eps=1e-5: layer_norm_backward(x, w, gy, eps, **switch)


def test_a_tuple_of_two_is_named(run_check):
    r = run_check(ID, lambda x, w, gy, eps=1e-5: layer_norm_backward(x, w, gy, eps)[:2])
    assert not r.passed and r.mistake == f"{ID}/not_a_tuple", r.messages


def test_sums_where_means_belong_say_which_term(run_check):
    message = run_check(ID, _slip(summed=("g",))).messages[0]
    assert "the term mean(g) summed over the last dim" in message and "d = 4 times" in message


def by_autograd(x, weight, grad_y, eps=1e-5):
    x = x.detach().requires_grad_()
    w = weight.detach().requires_grad_()
    x_hat, _ = _parts(x, eps)
    (x_hat * w).backward(grad_y)
    return x.grad, w.grad, grad_y.reshape(-1, x.shape[-1]).sum(0)


def by_autograd_grad(x, weight, grad_y, eps=1e-5):
    x = x.detach().requires_grad_()
    w = weight.detach().requires_grad_()
    gx, gw = torch.autograd.grad(_parts(x, eps)[0] * w, (x, w), grad_y)
    return gx, gw, grad_y.reshape(-1, x.shape[-1]).sum(0)


@pytest.mark.parametrize("candidate", [by_autograd, by_autograd_grad])
def test_autograd_is_switched_off(run_check, candidate):
    r = run_check(ID, candidate)
    assert not r.passed and r.mistake == f"{ID}/forbidden_builtin", r.messages
    assert "switched off" in r.messages[0]


def test_a_wrong_answer_is_judged_fast(run_check):
    import time

    run_check(ID, _slip(xhat_term=False))  # warm
    start = time.process_time()  # CPU time: the check's own work, not the machine's load
    run_check(ID, _slip(xhat_term=False))
    assert time.process_time() - start < 1.0
