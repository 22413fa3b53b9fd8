"""Property-based tests of helpers/checks/properties.py (Hypothesis, hypothesis-torch).

Over random shapes, sizes and values: correct alternates pass and the properties stay quiet;
mutated versions make them speak, with the right mistake code.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
import hypothesis_torch as ht
import pytest
import torch
from hypothesis import assume, given, settings

from helpers import check
from helpers.checks import EXERCISES, judge_failure
from helpers.checks.framework import Probe
from helpers.checks.properties import STABLE, diagnose
from helpers.checks.references import attention64
from helpers.checks.run.relations import props
from helpers.checks.run.runner import run_probe

FAST = settings(deadline=None, max_examples=5, derandomize=True)


def tensors(dtype, shape, elements=None):
    """hypothesis-torch's tensors, plain: strided, on the CPU, without grad."""
    return ht.tensor_strategy(
        dtype=dtype,
        shape=shape,
        elements=elements,
        layout=torch.strided,
        requires_grad=False,
        device=CPU,
        memory_format=torch.contiguous_format,
    )


CPU = torch.device("cpu")
SDPA = EXERCISES["02.scaled_dot_product_attention"]


@st.composite
def qkv_mask(draw):
    """q (B, H, T_q, d_k), k (B, H, T_k, d_k), v (B, H, T_k, d_v), a padding mask (B, 1, 1, T_k)
    that keeps at least one key per row."""
    B, H = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    T_q, T_k = draw(st.integers(1, 6)), draw(st.integers(2, 7))
    d_k, d_v = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    values = st.floats(-3, 3, width=32)

    def t(*shape):
        return draw(tensors(torch.float32, shape, values))

    lengths = [draw(st.integers(1, T_k)) for _ in range(B)]
    mask = (torch.arange(T_k)[None, :] < torch.tensor(lengths)[:, None])[:, None, None, :]
    return t(B, H, T_q, d_k), t(B, H, T_k, d_k), t(B, H, T_k, d_v), mask


# --------------------------------------------------------------------------- correct alternates


def einsum_inf(q, k, v, mask=None):
    s = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf")))
    w = s.softmax(-1)
    return torch.einsum("...qk,...kd->...qd", w, v), w


def fill_1e9(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    w = (s if mask is None else s.masked_fill(~mask, -1e9)).softmax(-1)
    return w @ v, w


def additive(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) * q.size(-1) ** -0.5
    if mask is not None:
        s = s + torch.zeros(mask.shape, device=q.device).masked_fill(~mask, float("-inf"))
    w = torch.exp(s - s.amax(-1, keepdim=True))
    w = w / w.sum(-1, keepdim=True)
    return w @ v, w


def judged(candidate, q, k, v, mask, *relations):
    probe = props(Probe("random", args=(q, k, v), kwargs={"mask": mask}), *relations)
    return judge_failure(SDPA, probe, run_probe(SDPA, probe, candidate, CPU))


@pytest.mark.parametrize("candidate", [einsum_inf, fill_1e9, additive])
@FAST
@given(qkv_mask())
def test_correct_alternates_pass_and_properties_stay_quiet(candidate, case):
    q, k, v, mask = case
    assert judged(candidate, q, k, v, mask, "masked", "batch", "meta") is None
    ref_out, ref_w = attention64(q, k, v, mask)
    out, w = candidate(q, k, v, mask)
    assert diagnose(w, ref_w.float(), "weights", weights=True) is None
    assert diagnose(out, ref_out.float(), "out") is None


# --------------------------------------------------------------------------- mutants speak


def leaky_mask(q, k, v, mask=None):  # blocked scores lowered by 2 only: they keep some weight
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    w = (s if mask is None else s - 2.0 * ~mask).softmax(-1)
    return w @ v, w


def batch_mixing(q, k, v, mask=None):  # a sum over the batch leaks into every element
    out, w = einsum_inf(q, k, v, mask)
    return out + 0.1 * out.sum(0, keepdim=True), w


@FAST
@given(qkv_mask())
def test_mask_leak_is_named(case):
    q, k, v, mask = case
    assume(not bool(mask.all()))
    fail = judged(leaky_mask, q, k, v, mask, "masked")
    assert fail is not None and fail.code == "mask_not_respected", fail


@FAST
@given(qkv_mask())
def test_batch_mixing_is_named(case):
    q, k, v, mask = case
    assume(q.shape[0] > 1)
    fail = judged(batch_mixing, q, k, v, mask, "batch")
    assert fail is not None and fail.code == "batch_mixing", fail


weights_case = st.tuples(st.integers(1, 4), st.integers(2, 8)).flatmap(
    lambda s: tensors(torch.float64, s, st.floats(-2, 2, allow_subnormal=False))
)


@FAST
@given(weights_case, st.floats(1.5, 4.0))
def test_scores_scaled_by_a_constant_are_named(scores, c):
    assume(bool((scores.amax(-1) - scores.amin(-1) > 0.5).all()))  # not saturated: c * 4 <= 16
    ref, got = scores.softmax(-1), (c * scores).softmax(-1)
    fail = diagnose(got, ref, "weights", weights=True, factors={"sqrt(d_model)": c})
    assert fail.code == "wrong_scale" and "sqrt(d_model)" in str(fail)


@FAST
@given(weights_case, st.floats(1.5, 4.0), st.floats(0.5, 3.0))
def test_factor_offset_and_nan_are_named(ref, c, d):
    assume(float(ref.std()) > 0.1)
    assert diagnose(c * ref, ref, factors={"sqrt(d_model)": c}).code == "constant_factor"
    assert diagnose(-c * ref, ref).code == "constant_factor"
    assert diagnose(-ref, ref).code == "negated" and "sign flipped" in str(diagnose(-ref, ref))
    one = ref.flatten()[:1]  # a single number: any other is a factor of it, and an offset
    assert diagnose(c * one, one) is None and diagnose(one + d, one) is None
    assert diagnose(ref + d, ref).code == "constant_offset"
    nan = ref.clone()
    nan[0, 0] = math.nan
    assert diagnose(nan, ref, hint=STABLE["softmax"]).code == "unstable_softmax"


@FAST
@given(
    st.lists(st.integers(2, 5), min_size=2, max_size=4, unique=True).flatmap(
        lambda s: st.tuples(
            tensors(torch.float64, tuple(s), st.floats(-9, 9)), st.permutations(range(len(s)))
        )
    )
)
def test_permuted_dims_are_named(case):
    ref, perm = case
    assume(list(perm) != sorted(perm))
    ref = ref.nan_to_num(0.0, 1.0, -1.0).clamp(-1e3, 1e3)
    names = tuple("BHTd"[: ref.dim()])
    fail = diagnose(ref.permute(perm), ref, "out", dims=names)
    assert fail is not None and fail.code == "dims_permuted"


@pytest.mark.parametrize("seed", range(5))
def test_a_float64_answer_computed_in_float32_is_named(seed):
    x = torch.randn(6, 16, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    ref = (x @ x.T).softmax(-1)
    got = (x.float() @ x.float().T).softmax(-1).double()  # the same, in float32
    assert diagnose(got, ref).code == "float32_inside"
    assert diagnose(ref + 1e-9 * ref.abs().max(), ref) is None  # far below float32's rounding
    assert diagnose(got.float(), ref) is None  # a float32 output is allowed its rounding
    assert getattr(diagnose(ref * (1 + 1e-5), ref), "code", None) is None  # a constant's size


def test_a_kv_cache_softmax_in_float32_is_told_about_precision():
    """The tester's KV cache: right, but its softmax runs in float32 on float64 inputs."""

    def kv_cache_step(q, k, v, cache=None):
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        weights = scores.float().softmax(dim=-1).to(q.dtype)
        return weights @ v, (k, v)

    result = check("08.kv_cache_step", kv_cache_step, quiet=True)
    assert result.mistake == "08.kv_cache_step/float32_inside", result.messages
    assert "float32" in result.messages[0]


@pytest.mark.parametrize(
    "exercise, block",
    [
        ("03.MultiHeadAttention", "helpers.blocks.multihead.MultiHeadAttention"),
        ("04.PositionalEncoding", "helpers.blocks.positional.PositionalEncoding"),
        ("05.FeedForward", "helpers.blocks.layers.FeedForward"),
    ],
)
def test_a_dropout_that_ignores_its_argument_is_named(exercise, block):
    """``nn.Dropout()`` alone drops with p=0.5, which is what the training-mode case passes:
    the module built with dropout=0.0 must not drop (the course's own passes)."""
    import importlib

    module, name = block.rsplit(".", 1)
    reference = getattr(importlib.import_module(module), name)

    class Default(reference):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.dropout = torch.nn.Dropout()

    assert check(exercise, reference, quiet=True).passed
    result = check(exercise, Default, quiet=True)
    assert result.mistake == f"{exercise}/dropout_p_ignored", result.messages
    assert "dropout=0.0" in result.messages[0]
