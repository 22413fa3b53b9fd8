"""Checks of notebook 07b: the solution passes, the stub is 'not implemented', each mistake is
named."""

import math

import pytest
import torch
import torch.nn.functional as F

from helpers.checks import EXERCISES, module_of
from helpers.checks.mistakes import program

from .conftest import stub

TOP_P_MISTAKES = {c: m.message for c, m in EXERCISES["07b.top_p_filter"].mistakes.items()}

# --------------------------------------------------------------------------- tokenizer


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)


def encode_index(text, vocab):  # written differently: str.index, a list then a tensor
    return torch.LongTensor([vocab.index(c) for c in text])


def decode(ids, vocab):
    return "".join(vocab[int(i)] for i in ids)


def test_encode_solution_passes(run_check):
    for candidate in (encode, encode_index):
        r = run_check("07b.encode", candidate)
        assert r.passed and r.points == r.max_points, r.messages


def test_encode_stub(run_check):
    r = run_check("07b.encode", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda text, vocab: encode(text, vocab).tolist(), "Python list"),
        (lambda text, vocab: encode(text, vocab).float(), "torch.long"),
        (lambda text, vocab: torch.tensor([vocab.index(c) for c in text]), "torch.long"),
        (lambda text, vocab: encode(text, vocab)[None], "shape"),
    ],
)
def test_encode_mistakes(run_check, candidate, words):
    r = run_check("07b.encode", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_decode_solution_passes(run_check):
    r = run_check("07b.decode", decode)
    assert r.passed and r.points == r.max_points, r.messages


def test_decode_stub(run_check):
    r = run_check("07b.decode", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda ids, vocab: [vocab[int(i)] for i in ids], "list of characters"),
        (lambda ids, vocab: None, "forget `return`"),
    ],
)
def test_decode_mistakes(run_check, candidate, words):
    r = run_check("07b.decode", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


# --------------------------------------------------------------------------- schedule


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))


def lr_at_tensor(step, warmup, total, max_lr, min_lr):  # written differently: torch, clamp
    t = torch.tensor((step - warmup) / (total - warmup)).clamp(0, 1)
    cosine = min_lr + (max_lr - min_lr) * 0.5 * (1 + torch.cos(math.pi * t))
    return torch.where(torch.tensor(step < warmup), max_lr * (step + 1) / (warmup + 1), cosine)


def test_lr_solution_passes(run_check):
    for candidate in (lr_at, lambda *args: float(lr_at_tensor(*args))):
        r = run_check("07b.lr_at", candidate)
        assert r.passed and r.points == r.max_points, r.messages


def test_lr_returns_a_float(run_check):
    """The text says `-> float`: a 0-d tensor, right in value, is told so (issue 39.1)."""
    r = run_check("07b.lr_at", lr_at_tensor)
    assert not r.passed and r.mistake == "07b.lr_at/returns_not_float", r.messages


def test_lr_stub(run_check):
    r = run_check("07b.lr_at", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def _lr(warm=lambda s, w, m: m * (s + 1) / (w + 1), progress=None, floor=True, shape=None):
    """lr_at with one of its pieces replaced."""

    def lr(step, warmup, total, max_lr, min_lr):
        if step < warmup:
            return warm(step, warmup, max_lr)
        if floor and step > total:
            return min_lr
        t = progress(step, warmup, total) if progress else (step - warmup) / (total - warmup)
        cos = 0.5 * (1 + math.cos(math.pi * t))
        return shape(cos, t, max_lr, min_lr) if shape else min_lr + (max_lr - min_lr) * cos

    return lr


# --------------------------------------------------------------------------- temperature


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return F.softmax(logits / temperature, dim=-1)


def test_temperature_solution_passes(run_check):
    r = run_check("07b.temperature_probs", temperature_probs)
    assert r.passed and r.points == r.max_points, r.messages


def test_temperature_stub(run_check):
    r = run_check("07b.temperature_probs", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_temperature_one_hot_of_another_dtype(run_check):
    """Its known mistakes: exercises/07b/catalogue.py, tested in test_catalogue.py."""

    def int_one_hot(x, t):
        return F.one_hot(x.argmax(-1), x.size(-1)) if t == 0 else F.softmax(x / t, dim=-1)

    r = run_check("07b.temperature_probs", int_one_hot)
    assert not r.passed and "dtype" in r.messages[0], r.messages


# --------------------------------------------------------------------------- top-k


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def top_k_sorted(logits, k):  # written differently: sort, a where
    kth = logits.sort(dim=-1, descending=True).values[..., min(k, logits.size(-1)) - 1, None]
    return torch.where(logits >= kth, logits, torch.full_like(logits, -math.inf))


def test_top_k_solution_passes(run_check):
    for candidate in (top_k_filter, top_k_sorted):
        r = run_check("07b.top_k_filter", candidate)
        assert r.passed and r.points == r.max_points, r.messages


def test_top_k_stub(run_check):
    r = run_check("07b.top_k_filter", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def _top_k_in_place(logits, k):  # nanoGPT's line, on the caller's tensor
    kth = torch.topk(logits, min(k, logits.size(-1)), dim=-1).values[..., -1:]
    logits[logits < kth] = -float("inf")
    return logits


@pytest.mark.parametrize(
    "candidate, code",
    [
        (lambda x, k: top_k_filter(x, k).masked_fill(top_k_filter(x, k).isinf(), 0.0), "zero_fill"),
        (lambda x, k: top_k_filter(x, k).clamp_min(-1e9), "finite_fill"),
        (
            lambda x, k: x.masked_fill(
                x <= torch.topk(x, min(k, x.size(-1)), -1).values[..., -1:], -math.inf
            ),
            "inverted_or_strict",
        ),
        (lambda x, k: -top_k_filter(-x, k), "smallest_or_fill"),
    ],
)
def test_top_k_mistakes(run_check, candidate, code):
    r = run_check("07b.top_k_filter", candidate)
    assert not r.passed
    if "_or_" not in code:
        assert r.mistake == f"07b.top_k_filter/{code}", r.messages


def test_top_k_in_place_is_reported(run_check):
    r = run_check("07b.top_k_filter", _top_k_in_place)
    assert not r.passed and "in place" in " ".join(r.messages), r.messages


# --------------------------------------------------------------------------- top-p


def top_p_filter(logits, p):
    sorted_logits, idx = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1) - probs
    sorted_logits = sorted_logits.masked_fill(before >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, idx, sorted_logits)


def top_p_hf(logits, p):  # Hugging Face's way: ascending sort, remove the low tail
    sorted_logits, idx = torch.sort(logits, descending=False)
    cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = cum <= (1 - p)
    remove[..., -1:] = False
    remove = remove.scatter(-1, idx, remove)
    return logits.masked_fill(remove, -float("inf"))


def test_top_p_solution_passes(run_check):
    for candidate in (top_p_filter, top_p_hf):
        r = run_check("07b.top_p_filter", candidate)
        assert r.passed and r.points == r.max_points, r.messages


def test_top_p_stub(run_check):
    r = run_check("07b.top_p_filter", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def _top_p(remove_sorted, unsort="scatter", cum_of="probs", fill=-math.inf):
    def f(logits, p):
        s, idx = logits.sort(dim=-1, descending=True)
        probs = s.softmax(-1) if cum_of == "probs" else s
        cum = probs.cumsum(-1)
        s = s.masked_fill(remove_sorted(cum, probs, p), fill)
        if unsort == "none":
            return s
        if unsort == "gather":
            return s.gather(-1, idx)
        return torch.empty_like(logits).scatter(-1, idx, s)

    return f


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_top_p(lambda c, q, p: c - q >= p, fill=0.0), "zero_fill"),
        (_top_p(lambda c, q, p: c - q >= p, fill=-1e9), "finite_fill"),
    ],
)
def test_top_p_mistakes(run_check, candidate, code):
    r = run_check("07b.top_p_filter", candidate)
    assert not r.passed
    assert named_or_listed(r, "07b.top_p_filter", code, TOP_P_MISTAKES), r.messages


def named_or_listed(r, exercise: str, code: str, messages: dict) -> bool:
    """Named by its code, or, where several slips give the output on that case (every logit
    kept, say), listed among them (and maybe named by the edit search before the list)."""
    head = messages.get(code, "").split(":")[0] or code
    return r.mistake == f"{exercise}/{code}" or (
        ("no logit is removed" in r.messages[0] or "each of these slips" in r.messages[0])
        and head in r.messages[0]
    )


def test_top_p_returning_probabilities_is_told(run_check):
    r = run_check("07b.top_p_filter", lambda x, p: top_p_filter(x, p).softmax(-1))
    assert not r.passed and "changed" in r.messages[0], r.messages


# --------------------------------------------------------------------------- training craft


@pytest.mark.parametrize(
    "exercise, answer",
    [
        ("07b.clip_grad_norm", "clip_grad_norm"),
        ("07b.save_checkpoint", "save_checkpoint"),
        ("07b.load_checkpoint", "load_checkpoint"),
        ("07b.q_uniform_perplexity", 108),
        ("07b.q_resume_without_optimizer", "b"),
    ],
)
def test_training_craft_solutions_pass(run_check, exercise, answer):
    """Their stubs and named mistakes: tests/checks/test_nb07b_craft.py."""
    from . import test_nb07b_craft as craft

    r = run_check(
        exercise, getattr(craft, answer) if isinstance(answer, str) and answer != "b" else answer
    )
    assert r.passed and r.points == r.max_points, r.messages


# --------------------------------------------------------------------------- more slips
# (found by a blind tester's set, tests/checks/heldout/f*.py: cases that expose each class)


# encode's and decode's catalogued mistakes: exercises/07b/catalogue.py (test_catalogue.py)


def test_lr_floor_division_is_listed_with_the_other_slip_that_gives_max_lr(run_check):
    """t = (s - w) // (T - w) is 0 inside the decay: the rate is max_lr there, as any t that is 0
    (or any cosine that is 1) gives; one number tells them not apart, so both are said."""
    r = run_check("07b.lr_at", _lr(progress=lambda s, w, T: (s - w) // (T - w)))
    text = r.messages[0]
    assert not r.passed and not r.mistake.endswith(("floor_division", "decay_at_max")), text
    assert "floor (integer) division; or the rate is still max_lr" in text, text


def test_temperature_stable_softmax_by_hand_passes(run_check):
    def stable(x, t):
        if t == 0:
            return temperature_probs(x, 0)
        z = x / t
        e = torch.exp(z - z.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    r = run_check("07b.temperature_probs", stable)
    assert r.passed, r.messages


def test_top_p_first_case_tells_every_mistake_apart():
    """The first case is where most slips fail: there every known mistake keeps another set (so
    the one named is the one the code has), none the right one."""
    ex = EXERCISES["07b.top_p_filter"]
    x, p = next(iter(ex.probes(torch.Generator().manual_seed(0)))).args
    codes = ("drops_crossing", "inverted", "on_logits", "ascending", "no_sort",
             "mask_not_unsorted", "wrong_dim")  # fmt: skip
    masks = {c: program(ex.reference64, ex.mistakes[c].wrong[0])(x, p).isfinite() for c in codes}
    masks["right"] = ex.reference64(x, p).isfinite()
    assert len({tuple(m.flatten().tolist()) for m in masks.values()}) == len(masks), masks


def test_top_p_exact_case_is_exact():
    """The case where the mass before a token is p exactly: float64 powers of 2, and the right
    filter (>=) and the strict one (>) differ there."""
    ex, EXACT_P_CASE = EXERCISES["07b.top_p_filter"], module_of("07b.top_p_filter").EXACT_P_CASE
    probes = ex.probes(torch.Generator().manual_seed(0))
    x, p = next(pr for pr in probes if pr.name == EXACT_P_CASE).args
    s = x.sort(-1, descending=True).values.softmax(-1)
    assert ((s.cumsum(-1) - s)[:, 1] == p).all()
    strict = program(ex.reference64, ex.mistakes["strict"].wrong[0])
    assert not torch.equal(ex.reference64(x, p), strict(x, p))
