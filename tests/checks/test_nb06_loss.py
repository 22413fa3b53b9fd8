"""Checks of 06.masked_cross_entropy (the token loss with padding and label smoothing): the
solution and correct alternates pass, each slip is named by its code. The stub is tested in
test_nb06.py."""

import time

import pytest
import torch
import torch.nn.functional as F

from helpers.checks import module_of

mce64 = module_of("06.masked_cross_entropy").mce64

ID = "06.masked_cross_entropy"


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0, *, log_probs=None,
                         others_over_V=False, divide="", pad_is=None, gather_dim=-1):  # fmt: skip
    """The solution, with a switch for the slips tested here (the catalogued ones are tested
    from exercises/06/catalogue.py)."""
    logp = logits.log_softmax(-1) if log_probs is None else log_probs(logits)
    nll = -logp.gather(gather_dim, targets.unsqueeze(gather_dim)).squeeze(gather_dim)
    smooth = (-logp.sum(-1) - nll) / logits.shape[-1] if others_over_V else -logp.mean(-1)
    per = (1 - label_smoothing) * nll + label_smoothing * smooth
    real = targets != (pad_id if pad_is is None else pad_is)
    if divide == "all":
        return (per * real).sum() / real.numel()
    if divide == "rows":
        T = targets.shape[-1]
        return ((per * real).reshape(-1, T).sum(-1) / real.reshape(-1, T).sum(-1)).mean()
    return (per * real).sum() / real.sum()


def by_indexing(logits, targets, pad_id, label_smoothing=0.0):
    """A correct alternate: the real positions picked out first, logsumexp by hand."""
    V = logits.shape[-1]
    z, t = logits.reshape(-1, V), targets.reshape(-1)
    keep = t != pad_id
    z, t = z[keep], t[keep]
    logp = z - z.logsumexp(-1, keepdim=True)
    target_dist = torch.full_like(logp, label_smoothing / V)
    target_dist[torch.arange(len(t), device=t.device), t] += 1 - label_smoothing
    return -(target_dist * logp).sum(-1).mean()


def test_the_written_out_loss_is_pytorchs():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, 7, generator=gen, dtype=torch.float64)
    targets = torch.randint(0, 7, (3, 5), generator=gen)
    targets[0, 2:] = 3
    for eps in (0.0, 0.1, 0.3):
        pytorchs = F.cross_entropy(logits.reshape(-1, 7), targets.reshape(-1), ignore_index=3,
                                   label_smoothing=eps)  # fmt: skip
        assert torch.allclose(mce64(logits, targets, 3, eps), pytorchs)


@pytest.mark.parametrize("candidate", [masked_cross_entropy, by_indexing])
def test_the_solution_and_an_alternate_pass(run_check, candidate):
    r = run_check(ID, candidate)
    assert r.passed and r.points == r.max_points, r.messages


def _slip(**switch):
    return lambda logits, targets, pad_id, label_smoothing=0.0: masked_cross_entropy(
        logits, targets, pad_id, label_smoothing, **switch
    )


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_slip(log_probs=lambda z: z.softmax(-1).log()), "not_finite"),
        (lambda *a, **k: masked_cross_entropy(*a, **k).reshape(1), "not_a_scalar"),
    ],
)
def test_each_slip_is_named(run_check, candidate, code):
    r = run_check(ID, candidate)
    assert not r.passed and r.mistake == f"{ID}/{code}", r.messages


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_gathering_along_dim_1_is_named_when_it_runs_and_when_it_raises(run_check, seed):
    """gather(1, ...), right for flat (N, V) logits: on (B, T, V) it picks
    log_probs[b, targets[b, t], t] when every target id is < T (the default seed's first case),
    and raises "index ... out of bounds for dimension 1" otherwise (most seeds)."""
    r = run_check(ID, _slip(gather_dim=1), seed=seed)
    assert not r.passed and r.mistake == f"{ID}/gather_dim", r.messages
    assert "along dim 1" in r.messages[0] and "gather(-1" in r.messages[0], r.messages


def test_an_index_out_of_bounds_that_is_no_target_id_is_not_called_a_gather(run_check):
    def wrong_index(logits, targets, pad_id, label_smoothing=0.0):
        return logits.log_softmax(-1)[:, 50].sum()  # "index 50 ... dimension 1 with size 5"

    r = run_check(ID, wrong_index)
    assert not r.passed and r.mistake != f"{ID}/gather_dim", r.messages


@pytest.mark.parametrize("seed", [None, 0, 2, 4, 9])
def test_a_loss_near_two_slips_is_named_after_the_nearer(run_check, seed):
    """One number can fall within the tolerance of a second slip by chance: the smoothing that
    skips the target is within 1e-3 of the smoothing ignored at seed 9 (the second case). And a
    mask hard-coded to pad 0 gave the loss of no mask at all where no real target was 0
    (seeds 2 and 4, before the case held one)."""
    r = run_check(ID, _slip(others_over_V=True), seed=seed)
    assert r.mistake == f"{ID}/smoothing_skips_target", (seed, r.messages)
    r = run_check(ID, _slip(pad_is=0), seed=seed)  # the case holds a real token of class 0
    assert r.mistake == f"{ID}/pad_id_hardcoded", (seed, r.messages)


def test_the_unstable_log_is_told_to_use_log_softmax(run_check):
    r = run_check(ID, _slip(log_probs=lambda z: z.softmax(-1).log()))
    assert "log_softmax" in r.messages[0], r.messages


def test_a_wrong_loss_no_slip_explains_gets_the_two_numbers_not_a_factor(run_check):
    r = run_check(ID, _slip(log_probs=lambda z: z.log_softmax(-1).roll(1, dims=-1)))
    assert not r.passed and "expected" in r.messages[0] and "factor" not in r.messages[0]


def test_pytorchs_loss_is_switched_off(run_check):
    def builtin(logits, targets, pad_id, label_smoothing=0.0):
        V = logits.shape[-1]
        return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=pad_id,
                               label_smoothing=label_smoothing)  # fmt: skip

    r = run_check(ID, builtin)
    assert not r.passed and "switched off" in r.messages[0], r.messages


def test_a_wrong_answer_is_judged_fast(run_check):
    run_check(ID, _slip(divide="all"))  # warm
    start = time.process_time()  # CPU time: the check's own work, not the machine's load
    run_check(ID, _slip(divide="rows"))
    assert time.process_time() - start < 1.0
