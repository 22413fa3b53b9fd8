"""Exercises done as asked (issue 42.6): a backward pass computed by autograd in either mode, and
blockwise attention computed outside torch, where no tensor size is measured, are refused.

Each candidate below passed its check on f61ba4a: written as a learner who wants the points
without the exercise writes it. The values move to the CPU first where the stand-in GPU lacks
an operation of forward mode (a real GPU has them all)."""

import contextlib
import io
import math

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwAD

from helpers.blocks.efficient import blockwise_attention


def _softmax(s, dim=-1):
    e = (s - s.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def _attention(mask):
    def f(q, k, v):  # q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v)
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T_q, T_k)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return _softmax(s) @ v

    return f


def _cpu(*ts):
    """The tensors on the CPU, unless they are meta tensors (no values: shapes only)."""
    return tuple(t if t is None or t.device.type == "meta" else t.cpu() for t in ts)


def by_dual_numbers(f, inputs, grad_out):
    """The gradient of sum(grad_out * f(*inputs)) for each input: one forward-mode pass per
    input entry, its tangent the entry's one-hot vector; no backward written."""
    grads = []
    for i, x in enumerate(inputs):
        grad = torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
        for j in range(x.numel()):
            tangent = torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
            tangent[j] = 1
            with fwAD.dual_level():
                duals = [fwAD.make_dual(y, tangent.view_as(y)) if n == i else y
                         for n, y in enumerate(inputs)]  # fmt: skip
                grad[j] = (fwAD.unpack_dual(f(*duals)).tangent * grad_out).sum()
        grads.append(grad.view_as(x))
    return grads


def attention_backward_forward_mode(q, k, v, grad_out, mask=None):
    device = q.device
    q, k, v, grad_out, mask = _cpu(q, k, v, grad_out, mask)
    return tuple(g.to(device) for g in by_dual_numbers(_attention(mask), [q, k, v], grad_out))


def attention_backward_jacfwd(q, k, v, grad_out, mask=None):
    device = q.device
    q, k, v, grad_out, mask = _cpu(q, k, v, grad_out, mask)
    jacobians = torch.func.jacfwd(_attention(mask), argnums=(0, 1, 2))(q, k, v)
    return tuple(torch.tensordot(grad_out, j, dims=grad_out.dim()).to(device) for j in jacobians)


def attention_backward_autograd_grad(q, k, v, grad_out, mask=None):
    if not q.requires_grad:  # the check's gradient case hands in inputs that require grad
        q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    out = _attention(mask)(q, k, v)
    return torch.autograd.grad(out, (q, k, v), grad_out, create_graph=True)


def softmax_backward_forward_mode(y, grad_y, dim=-1):
    """Dual numbers on a shift d of the scores at 0: p(d) = y e^d / (1 + sum(y (e^d - 1))) is y
    at d = 0 for every y, so its derivative in y is the softmax's too."""
    device = y.device
    y, grad_y = _cpu(y, grad_y)

    def shifted(d):
        return y * d.exp() / (1 + (y * (d.exp() - 1)).sum(dim, keepdim=True))

    return by_dual_numbers(shifted, [torch.zeros_like(y)], grad_y)[0].to(device)


def layer_norm_backward_forward_mode(x, weight, grad_y, eps=1e-5):
    device = x.device
    x, weight, grad_y = _cpu(x, weight, grad_y)

    def layer_norm(x, w):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * w

    grad_x, grad_w = by_dual_numbers(layer_norm, [x, weight], grad_y)
    grad_b = grad_y.reshape(-1, x.shape[-1]).sum(0)
    return grad_x.to(device), grad_w.to(device), grad_b.to(device)


@pytest.mark.parametrize(
    "exercise, candidate",
    [
        ("02.attention_backward", attention_backward_forward_mode),
        ("02.attention_backward", attention_backward_jacfwd),
        ("02.attention_backward", attention_backward_autograd_grad),
        ("01.softmax_backward", softmax_backward_forward_mode),
        ("05.layer_norm_backward", layer_norm_backward_forward_mode),
    ],
)
def test_a_backward_pass_by_autograd_is_refused(run_check, exercise, candidate):
    r = run_check(exercise, candidate)
    assert not r.passed and r.mistake == f"{exercise}/forbidden_builtin", r.messages
    assert "switched off" in r.messages[0]


def _numpy_attention(q, k, v, to_array):
    qn, kn, vn = (to_array(t.detach().cpu().double()) for t in (q, k, v))
    s = qn @ np.swapaxes(kn, -1, -2) / math.sqrt(qn.shape[-1])  # (..., T_q, T_k): every score
    e = np.exp(s - s.max(-1, keepdims=True))
    return torch.from_numpy((e / e.sum(-1, keepdims=True)) @ vn).to(q.dtype).to(q.device)


def blockwise_in(to_array):
    """The whole softmax in NumPy; the meta case, which has no values, answered with
    torch.empty of the right shape."""

    def blockwise(q, k, v, block_size=64):
        if q.device.type == "meta":
            return torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
        return _numpy_attention(q, k, v, to_array)

    return blockwise


@pytest.mark.parametrize(
    "to_array, name",
    [
        (lambda t: t.numpy(), "torch.Tensor.numpy"),
        (np.asarray, "torch.Tensor.__array__"),
        (lambda t: np.array(t.tolist()), "torch.Tensor.tolist"),
    ],
)
def test_blockwise_attention_outside_torch_is_refused(run_check, to_array, name):
    r = run_check("08.blockwise_attention", blockwise_in(to_array))
    assert not r.passed and r.mistake == "08.blockwise_attention/forbidden_builtin", r.messages
    assert name in r.messages[0] and "NumPy" in r.messages[0]


def test_printing_a_tensor_in_blockwise_attention_still_passes(run_check):
    """torch's own code reads values (a tensor's repr): only the learner's calls are refused."""

    def printing(q, k, v, block_size=64):
        out = blockwise_attention(q, k, v, block_size)
        print(out[..., :1, :], out.sum())  # repr: torch reads the values (tolist, item)
        return out

    with contextlib.redirect_stdout(io.StringIO()):
        r = run_check("08.blockwise_attention", printing)
    assert r.passed, r.messages
