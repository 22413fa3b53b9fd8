"""Checks of notebook 02: the solution passes, other correct answers pass, the stub is
'not implemented', and each named mistake fails with its own message."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.nn.functional import scaled_dot_product_attention as imported_sdpa

from .conftest import stub

SDPA = "02.scaled_dot_product_attention"


def sdpa(
    q, k, v, mask=None, *, scale=None, dim=-1, mask_mode="before", fill=float("-inf"), values=None
):
    """The solution, with switches for the mistakes."""
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.size(-1)) if scale is None else scale(q, k, v))
    if mask is not None and mask_mode == "before":
        scores = scores.masked_fill(~mask, fill)
    if mask is not None and mask_mode == "inverted":
        scores = scores.masked_fill(mask, fill)
    weights = scores.softmax(dim=dim)
    if mask is not None and mask_mode == "after":
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ (v if values is None else values(q, k, v)), weights


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
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask, scale=lambda q, k, v: 1.0), "not scaled"),
        (
            lambda q, k, v, mask=None: sdpa(
                q, k, v, mask, scale=lambda q, k, v: math.sqrt(v.size(-1))
            ),
            "divided by sqrt(d_v)",
        ),
        (
            lambda q, k, v, mask=None: sdpa(q, k, v, mask, scale=lambda q, k, v: q.size(-1)),
            "divided by d_k",
        ),
        (
            lambda q, k, v, mask=None: sdpa(
                q, k, v, mask, scale=lambda q, k, v: math.sqrt(k.size(-2))
            ),
            "sqrt(T_k)",
        ),
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask, dim=-2), "over the queries"),
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask, mask_mode="inverted"), "mask is inverted"),
        (
            lambda q, k, v, mask=None: sdpa(q, k, v, mask, mask_mode="inverted", fill=-1e9),
            "mask is inverted",
        ),
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask, mask_mode="ignored"), "mask is ignored"),
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask, mask_mode="after"), "after softmax"),
        (
            lambda q, k, v, mask=None: sdpa(q, k, v, mask, values=lambda q, k, v: k),
            "not the keys k",
        ),
        (lambda q, k, v, mask=None: sdpa(q, k, v, mask)[::-1], "wrong order"),
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
def test_sdpa_mistakes(run_check, candidate, words):
    r = run_check(SDPA, candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_sdpa_weights_times_k_named_when_shapes_agree(run_check):
    # the first probe has d_k = d_v, so weights @ k has the right shape
    r = run_check(SDPA, lambda q, k, v, mask=None: sdpa(q, k, v, mask, values=lambda q, k, v: k))
    assert (
        "must multiply the values v" in r.messages[0]
        and "case q, k, v of shape (3, 4)" in r.messages[0]
    )


def test_sdpa_zero_times_inf_nan_is_explained(run_check):
    def multiplied_mask(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores + (~mask) * float("-inf")  # 0 * -inf = NaN
        w = scores.softmax(-1)
        return w @ v, w

    r = run_check(SDPA, multiplied_mask)
    assert not r.passed and "0 * -inf" in r.messages[0], r.messages


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


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda T, device=None: ~causal_mask(T, device), "True = blocked"),
        (lambda T, device=None: causal_mask(T, device).T, "upper-triangular"),
        (lambda T, device=None: causal_mask(T, device).tril(-1), "attend to itself"),
        (lambda T, device=None: causal_mask(T, device).float(), "boolean"),
        (
            lambda T, device=None: torch.zeros(T, T, device=device).masked_fill(
                ~causal_mask(T, device), float("-inf")
            ),
            "additive",
        ),
        (lambda T, device=None: causal_mask(T + 1, device), "shape"),
        (lambda T, device=None: causal_mask(T, device).tolist(), "should be a torch.Tensor"),
    ],
)
def test_causal_mask_mistakes(run_check, candidate, words):
    r = run_check("02.causal_mask", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_padding_mask_solution_passes(run_check):
    assert run_check("02.padding_mask", padding_mask).passed


def test_padding_mask_written_differently_passes(run_check):
    assert run_check("02.padding_mask", lambda t, p: t.ne(p).unsqueeze(1).unsqueeze(2)).passed


def test_padding_mask_stub(run_check):
    r = run_check("02.padding_mask", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda t, p: t != p, "add the head and query dimensions"),
        (lambda t, p: (t != p)[:, None, :], "add the head and query dimensions"),
        (lambda t, p: (t != p)[:, :, None, None], "last (key) dimension"),
        (lambda t, p: (t == p)[:, None, None, :], "True at the padding"),
        (lambda t, p: (t != 0)[:, None, None, :], "not with pad_id"),
        (lambda t, p: (t != p)[:, None, None, :].long(), "dtype"),
        (
            lambda t, p: (
                torch.arange(t.shape[-1], device=t.device) < (t != p).sum(-1, keepdim=True)
            )[:, None, None, :],
            "right only when the padding is at the end",
        ),
    ],
)
def test_padding_mask_mistakes(run_check, candidate, words):
    r = run_check("02.padding_mask", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_failed_mask_carries_expected_and_got_for_the_inline_figure():
    from helpers import check

    def triu(T, device=None):
        return torch.ones(T, T, dtype=torch.bool, device=device).triu()

    r = check("02.causal_mask", triu, quiet=True)
    expected, got = r.figure
    assert torch.equal(expected, got.T) and not torch.equal(expected, got)
    ok = check("02.causal_mask", lambda T, device=None: triu(T, device).T, quiet=True)
    assert ok.passed and ok.figure is None
