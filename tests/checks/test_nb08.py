"""Checks of notebook 08: the solution passes, the stub is 'not implemented', mistakes are named."""

import math

import pytest
import torch
import torch.nn.functional as F

from .conftest import stub

# --------------------------------------------------------------------------- sliding window


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j).abs() <= window
    return mask & (j <= i) if causal else mask


def band_mask(T, window, causal=False, device=None):  # written differently: triu/tril of ones
    ones = torch.ones(T, T, dtype=torch.bool, device=device)
    upper = 0 if causal else window
    return ones.tril(upper) & ones.triu(-window)


def test_window_solution_passes(run_check):
    r = run_check("08.sliding_window_mask", sliding_window_mask)
    assert r.passed and r.points == r.max_points


def test_window_written_differently_passes(run_check):
    assert run_check("08.sliding_window_mask", band_mask).passed


def test_window_stub(run_check):
    r = run_check("08.sliding_window_mask", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


# its known mistakes: exercises/08/catalogue.py, tested in test_catalogue.py


# --------------------------------------------------------------------------- linear attention


def linear_attention(q, k, v, causal=False):
    q, k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)  # (..., T, d_k, d_v)
        z = torch.cumsum(k, dim=-2)  # (..., T, d_k)
        num = (q.unsqueeze(-2) @ S).squeeze(-2)
        return num / (q * z).sum(-1, keepdim=True)
    S = k.transpose(-2, -1) @ v  # (..., d_k, d_v)
    z = k.sum(-2)  # (..., d_k)
    return (q @ S) / (q @ z.unsqueeze(-1))


def linear_attention_quadratic(q, k, v, causal=False):  # the T x T form, with an eps
    A = (F.elu(q) + 1) @ (F.elu(k) + 1).transpose(-2, -1)
    if causal:
        A = A.tril()
    return (A @ v) / (A.sum(-1, keepdim=True) + 1e-6)


def linear_attention_einsum(q, k, v, causal=False):  # written differently: einsum, an eps
    pq, pk = F.elu(q) + 1, F.elu(k) + 1
    if not causal:  # the T x T form is allowed here: the text limits the causal case only
        return linear_attention_quadratic(q, k, v)
    S = torch.einsum("...tk,...tv->...tkv", pk, v).cumsum(-3)
    z = pk.cumsum(-2)
    return torch.einsum("...tk,...tkv->...tv", pq, S) / (
        torch.einsum("...tk,...tk->...t", pq, z)[..., None] + 1e-6
    )


def test_linear_solution_passes(run_check):
    r = run_check("08.linear_attention", linear_attention)
    assert r.passed, r.messages


def test_linear_written_differently_passes(run_check):
    assert run_check("08.linear_attention", linear_attention_einsum).passed


def test_linear_causal_tt_matrix_is_off_contract(run_check):
    # the task: "compute it with torch.cumsum, without a T x T matrix"
    r = run_check("08.linear_attention", linear_attention_quadratic)
    assert r.mistake == "08.linear_attention/tt_matrix" and "cumsum" in r.messages[0]


def test_linear_stub(run_check):
    r = run_check("08.linear_attention", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def variant(phi):  # another feature map (the catalogued slips are tested from the catalogue)
    def f(q, k, v, causal=False):
        A = phi(q) @ phi(k).transpose(-2, -1)
        A = A.tril() if causal else A
        return A @ v / A.sum(-1, keepdim=True)

    return f


@pytest.mark.parametrize(
    "candidate, words",
    [
        (variant(phi=F.elu), "without + 1"),
        (variant(phi=torch.exp), "feature map is exp"),
        (variant(phi=lambda x: x), "no feature map"),
        (
            lambda q, k, v, causal=False: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
            "switched off",
        ),
        (lambda q, k, v, causal=False: linear_attention(q, k, v, causal)[..., :1], "shape"),
    ],
)
def test_linear_mistakes(run_check, candidate, words):
    r = run_check("08.linear_attention", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- blockwise attention


def blockwise_attention(q, k, v, block_size=64):
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    for start in range(0, k.shape[-2], block_size):
        s = q @ k[..., start : start + block_size, :].transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p @ v[..., start : start + block_size, :]
        m = m_new
    return acc / l


def blockwise_chunks(q, k, v, block_size=64):  # written differently: split/zip, divide at the end
    m, l, acc = None, None, None
    for kb, vb in zip(k.split(block_size, -2), v.split(block_size, -2)):
        s = torch.einsum("...qd,...kd->...qk", q, kb) / math.sqrt(q.shape[-1])
        bm = s.max(-1, keepdim=True).values
        if m is None:
            m, p = bm, (s - bm).exp()
            l, acc = p.sum(-1, keepdim=True), p @ vb
            continue
        m_new = torch.maximum(m, bm)
        p = (s - m_new).exp()
        c = (m - m_new).exp()
        l, acc, m = l * c + p.sum(-1, keepdim=True), acc * c + p @ vb, m_new
    return acc / l


def test_blockwise_solution_passes(run_check):
    r = run_check("08.blockwise_attention", blockwise_attention)
    assert r.passed, r.messages


def test_blockwise_written_differently_passes(run_check):
    assert run_check("08.blockwise_attention", blockwise_chunks).passed


def test_blockwise_stub(run_check):
    r = run_check("08.blockwise_attention", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def bw_unscaled(q, k, v, block_size=64):  # the scores q·k, not divided by sqrt(d_k)
    return blockwise_attention(q * math.sqrt(q.shape[-1]), k, v, block_size)


def full_scores(q, k, v, block_size=64):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = (s - s.amax(-1, keepdim=True)).exp()
    return (e / e.sum(-1, keepdim=True)) @ v


@pytest.mark.parametrize(
    "candidate, words",
    [
        (bw_unscaled, "sqrt(d_k)"),
        (full_scores, "as large as the whole score matrix"),
        (
            lambda q, k, v, block_size=64: torch.softmax(q @ k.transpose(-2, -1), -1) @ v,
            "switched off",
        ),
    ],
)
def test_blockwise_mistakes(run_check, candidate, words):
    r = run_check("08.blockwise_attention", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- KV cache


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([cache[0], k], dim=-2)
        v = torch.cat([cache[1], v], dim=-2)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return w @ v, (k, v)


def kv_cache_sdpa(q, k, v, cache=None):  # written differently: the fused kernel, a list cache
    ks, vs = (
        (list(cache[0].unbind(-2)), list(cache[1].unbind(-2))) if cache is not None else ([], [])
    )
    k_all, v_all = torch.stack(ks + [k[..., 0, :]], -2), torch.stack(vs + [v[..., 0, :]], -2)
    return F.scaled_dot_product_attention(q, k_all, v_all), (k_all, v_all)


def test_kv_solution_passes(run_check):
    r = run_check("08.kv_cache_step", kv_cache_step)
    assert r.passed, r.messages


def test_kv_written_differently_passes(run_check):
    assert run_check("08.kv_cache_step", kv_cache_sdpa).passed


def test_kv_stub(run_check):
    r = run_check("08.kv_cache_step", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda q, k, v, cache=None: kv_cache_step(q, k, v, cache)[0], "tuple (out, cache)"),
        (
            lambda q, k, v, cache=None: (
                (
                    kv_cache_step(q, k, v, cache)[0],
                    tuple(c.transpose(-2, -1) for c in kv_cache_step(q, k, v, cache)[1]),
                )
                if cache is None
                else kv_cache_step(q, k, v, tuple(c.transpose(-2, -1) for c in cache))
            ),
            "RuntimeError",
        ),
    ],
)
def test_kv_mistakes(run_check, candidate, words):
    r = run_check("08.kv_cache_step", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- diagnosis by property


def bw_min(q, k, v, block_size=64):  # the block's *min* as the running max: exact, but overflows
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype)
    l, acc = torch.zeros_like(m), torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start : start + block_size, :], v[..., start : start + block_size, :]
        s = q @ kb.transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amin(-1, keepdim=True))
        p, alpha = (s - m_new).exp(), (m - m_new).exp()
        l, acc, m = l * alpha + p.sum(-1, keepdim=True), acc * alpha + p @ vb, m_new
    return acc / l


def linear_times_den(q, k, v, causal=False):  # the numerator times the denominator
    A = (F.elu(q) + 1) @ (F.elu(k) + 1).transpose(-2, -1)
    A = A.tril() if causal else A
    return (A @ v) * A.sum(-1, keepdim=True)


def kv_values_as_keys(q, k, v, cache=None):  # the keys' cache extended from the values' cache
    if cache is not None:
        k, v = torch.cat([cache[1], k], dim=-2), torch.cat([cache[1], v], dim=-2)
    return F.scaled_dot_product_attention(q, k, v), (k, v)


def window_or_causal(T, w, causal=False, device=None):  # (|i - j| <= w) | (j <= i)
    tril = torch.ones(T, T, dtype=torch.bool).tril()
    return sliding_window_mask(T, w, False, device) | (tril if causal else False)


def causal_without_window(T, w, causal=False, device=None):
    tril = torch.ones(T, T, dtype=torch.bool).tril()
    return tril if causal else sliding_window_mask(T, w, False, device)


def window_without_self(T, w, causal=False, device=None):
    return sliding_window_mask(T, w, causal, device) & ~torch.eye(T, dtype=torch.bool)


def scores_times_sqrt_d(q, k, v, block_size=64):
    return full_scores(q * q.shape[-1], k, v)


@pytest.mark.parametrize(
    "exercise, candidate, code",
    [
        ("08.blockwise_attention", bw_min, "overflow"),
        ("08.blockwise_attention", scores_times_sqrt_d, "scaled_by_sqrt_d"),
        ("08.linear_attention", linear_times_den, "rows_scaled"),
        ("08.linear_attention", variant(phi=lambda x: F.elu(x) - 1), "wrong_feature_map"),
        ("08.sliding_window_mask", window_or_causal, "mask_allows_future"),
        ("08.sliding_window_mask", causal_without_window, "mask_outside_window"),
        ("08.sliding_window_mask", window_without_self, "mask_blocks_self"),
        ("08.kv_cache_step", kv_values_as_keys, "cache_mixed_up"),
    ],
)
def test_diagnosed_by_property(run_check, exercise, candidate, code):
    r = run_check(exercise, candidate)
    assert not r.passed
    assert r.mistake == f"{exercise}/{code}", r.messages


def test_the_questions_tested_in_a_file_of_their_own_are_registered():
    """08.q_memory_growth and 08.q_kv_step: tests/checks/test_nb08_questions.py."""
    from pathlib import Path

    from helpers.checks import EXERCISES

    text = (Path(__file__).parent / "test_nb08_questions.py").read_text(encoding="utf-8")
    for exercise in ("08.q_memory_growth", "08.q_kv_step"):
        assert exercise in EXERCISES and exercise in text
