"""00.relu, and the mistake codes (issue 13) of representative wrong versions of 00-02."""

import math

import pytest
import torch

from .wrong.test_nb00_02 import (
    relu_inplace,
    relu_python_max,
    sdpa,
    sdpa_scaled_after_softmax,
    softmax_with,
)


def test_relu_right_and_stub(run_check):
    assert run_check("00.relu", lambda x: x * (x > 0)).passed
    r = run_check("00.relu", lambda x: (_ for _ in ()).throw(NotImplementedError))
    assert r.status == "missing" and r.mistake == ""


@pytest.mark.parametrize(
    "exercise, candidate, code",
    [
        ("00.relu", lambda x: x.abs(), "abs"),
        ("00.relu", lambda x: torch.where(x > 0, x, 0.01 * x), "leaky"),
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
        ("02.scaled_dot_product_attention", sdpa(scale="none"), "no_scale"),
        ("02.scaled_dot_product_attention", sdpa(mask_mode="multiply"), "blocked_scores_zero"),
        ("02.scaled_dot_product_attention", sdpa(mask_mode="inverted"), "mask_inverted"),
        ("02.scaled_dot_product_attention", sdpa(transpose="all"), "dot_T"),
        ("02.scaled_dot_product_attention", sdpa_scaled_after_softmax, "scaled_after_softmax"),
        ("02.causal_mask", lambda T, device=None: torch.ones(T, T).tril().bool(), "ignores_device"),
        (
            "02.causal_mask",
            lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).triu(),
            "triu",
        ),
        ("02.padding_mask", lambda tokens, pad_id: tokens != pad_id, "missing_dims"),
    ],
)
def test_mistake_codes(run_check, exercise, candidate, code):
    r = run_check(exercise, candidate)
    assert not r.passed and r.mistake == f"{exercise}/{code}", (r.mistake, r.messages)


def test_an_unnamed_mistake_has_no_code(run_check):
    r = run_check("00.relu", lambda x: x + 1)
    assert not r.passed and r.mistake == "" and "does not match" in r.messages[0]
