"""Checks of notebook 07b: the solution passes, the stub is 'not implemented', each mistake is
named."""

import math

import pytest
import torch
import torch.nn.functional as F

from helpers.checks import module_of

from .conftest import stub

TOP_P_MISTAKES = module_of("07b.top_p_filter").TOP_P_MISTAKES

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
        (lambda text, vocab: encode(text, vocab) + 1, "start at 1"),
        (lambda text, vocab: encode(text, "".join(sorted(set(text)))), "text's own characters"),
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
        (lambda ids, vocab: " ".join(vocab[int(i)] for i in ids), "joined with ' '"),
        (lambda ids, vocab: [vocab[int(i)] for i in ids], "list of characters"),
        (lambda ids, vocab: "".join(vocab[int(i) - 1] for i in ids), "one place off"),
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


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_lr(warm=lambda s, w, m: m * s / w), "warmup_from_zero"),
        (_lr(warm=lambda s, w, m: m * (s + 1) / w), "warmup_one_short"),
        (_lr(progress=lambda s, w, T: s / T), "progress_from_zero"),
        (_lr(progress=lambda s, w, T: (s - w) / T), "progress_over_total"),
        (_lr(floor=False), "no_floor"),
        (_lr(shape=lambda c, t, M, m: M * c), "to_zero"),
        (_lr(shape=lambda c, t, M, m: m + M * c), "min_added"),
        (_lr(shape=lambda c, t, M, m: m + (M - m) * 2 * c), "no_half"),
        (_lr(shape=lambda c, t, M, m: m + (M - m) * (1 - t)), "linear"),
    ],
)
def test_lr_mistakes(run_check, candidate, code):
    r = run_check("07b.lr_at", candidate)
    assert not r.passed
    assert r.mistake == f"07b.lr_at/{code}", r.messages


def test_lr_no_warmup_is_named(run_check):
    def no_warmup(step, warmup, total, max_lr, min_lr):
        if step > total:
            return min_lr
        return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * step / total))

    r = run_check("07b.lr_at", no_warmup)
    assert not r.passed and "no warm-up" in r.messages[0], r.messages


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


def _greedy_or(f):
    return lambda x, t: temperature_probs(x, 0) if t == 0 else f(x, t)


@pytest.mark.parametrize(
    "candidate, words",
    [
        (_greedy_or(lambda x, t: F.softmax(x * t, dim=-1)), "multiplied"),
        (_greedy_or(lambda x, t: F.softmax(x, dim=-1)), "ignored"),
        (_greedy_or(lambda x, t: x / t), "not probabilities"),
        (_greedy_or(lambda x, t: F.log_softmax(x / t, dim=-1)), "log-probabilities"),
        (_greedy_or(lambda x, t: F.softmax(x / t, dim=0)), "wrong dim"),
        (lambda x, t: F.softmax(x / t, dim=-1), "NaN"),
        (lambda x, t: x.argmax(-1) if t == 0 else F.softmax(x / t, dim=-1), "argmax's index"),
        (
            lambda x, t: (
                F.one_hot(x.argmax(-1), x.size(-1)) if t == 0 else F.softmax(x / t, dim=-1)
            ),
            "dtype",
        ),
    ],
)
def test_temperature_mistakes(run_check, candidate, words):
    r = run_check("07b.temperature_probs", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


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


def _top_k_exactly(logits, k):
    idx = torch.topk(logits, min(k, logits.size(-1)), dim=-1).indices
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, idx, True)
    return logits.masked_fill(~keep, -math.inf)


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
        (_top_k_exactly, "exactly_k"),
        (lambda x, k: top_k_filter(x, k + 1), "k_plus_one"),
        (
            lambda x, k: x.masked_fill(x < torch.topk(x, k, dim=-1).values[..., -1:], -math.inf),
            "k_larger_than_vocab",
        ),  # fmt: skip
    ],
)
def test_top_k_mistakes(run_check, candidate, code):
    r = run_check("07b.top_k_filter", candidate)
    assert not r.passed
    if "_or_" not in code:
        assert r.mistake == f"07b.top_k_filter/{code}", r.messages


def test_top_k_strict_is_named(run_check):
    strict = (
        lambda x, k: x.masked_fill(  # noqa: E731
            x <= torch.topk(x, min(k + 1, x.size(-1)), -1).values[..., -1:], -math.inf
        )
    )
    r = run_check("07b.top_k_filter", strict)
    assert not r.passed and r.mistake in ("07b.top_k_filter/strict", None), r.messages


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
        (_top_p(lambda c, q, p: c > p), "drops_crossing"),
        (_top_p(lambda c, q, p: c - q < p), "inverted"),
        (_top_p(lambda c, q, p: c - q >= p, cum_of="logits"), "on_logits"),
        (_top_p(lambda c, q, p: c - q >= p, unsort="none"), "not_unsorted"),
        (_top_p(lambda c, q, p: c - q >= p, unsort="gather"), "gather_not_scatter"),
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


def _encode_stack(text, vocab):  # torch.stack of one 0-d tensor per character
    return torch.stack([torch.tensor(vocab.index(c)) for c in text])


@pytest.mark.parametrize(
    "candidate, code",
    [
        (lambda text, vocab: torch.tensor([ord(c) for c in text], dtype=torch.long), "code_point"),
        (lambda text, vocab: encode(text, vocab[::-1]), "wrong_order"),
        (lambda text, vocab: encode(text, "".join(sorted(vocab))), "sorted_vocab"),
        (lambda text, vocab: encode(text.strip(), vocab), "strips_text"),
        (_encode_stack, "empty_text"),
    ],
)
def test_encode_more_mistakes(run_check, candidate, code):
    r = run_check("07b.encode", candidate)
    assert not r.passed and r.mistake == f"07b.encode/{code}", r.messages


@pytest.mark.parametrize(
    "candidate, code",
    [
        (lambda ids, vocab: "".join(chr(int(i)) for i in ids), "code_point"),
        (lambda ids, vocab: "".join(vocab[i] for i in ids.tolist()), "list_input"),
        (lambda ids, vocab: decode(ids, vocab).strip(), "strips_text"),
        (lambda ids, vocab: decode(torch.unique(torch.as_tensor(ids)), vocab), "unique"),
        (lambda ids, vocab: decode(ids, "".join(sorted(vocab))), "sorted_vocab"),
        (lambda ids, vocab: "".join(vocab[int(i)] for i in ids if int(i) != 0), "skips_zero"),
    ],
)
def test_decode_more_mistakes(run_check, candidate, code):
    r = run_check("07b.decode", candidate)
    assert not r.passed and r.mistake == f"07b.decode/{code}", r.messages


def _lr_divides_first(step, warmup, total, max_lr, min_lr):
    ramp = (step + 1) / (warmup + 1)
    done = step / warmup  # before the branches: warmup = 0 divides by zero
    return max_lr * ramp if done < 1 else lr_at(step, warmup, total, max_lr, min_lr)


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_lr(shape=lambda c, t, M, m: m + (M - m) * 0.5 * (1 + math.cos(t))), "no_pi"),
        (_lr(shape=lambda c, t, M, m: m + (M - m) * (1 - c)), "rises"),
        (_lr_divides_first, "divides_by_warmup"),
        (_lr(progress=lambda s, w, T: 1.0), "decay_at_min"),  # t stuck at 1
    ],
)
def test_lr_more_mistakes(run_check, candidate, code):
    r = run_check("07b.lr_at", candidate)
    assert not r.passed and r.mistake == f"07b.lr_at/{code}", r.messages


def test_lr_floor_division_is_listed_with_the_other_slip_that_gives_max_lr(run_check):
    """t = (s - w) // (T - w) is 0 inside the decay: the rate is max_lr there, as any t that is 0
    (or any cosine that is 1) gives; one number tells them not apart, so both are said."""
    r = run_check("07b.lr_at", _lr(progress=lambda s, w, T: (s - w) // (T - w)))
    text = r.messages[0]
    assert not r.passed and not r.mistake.endswith(("floor_division", "decay_at_max")), text
    assert "floor (integer) division; or the rate is still max_lr" in text, text


def test_lr_warmup_from_min_lr_is_named(run_check):
    def from_min_lr(step, warmup, total, max_lr, min_lr):
        if step < warmup:
            return min_lr + (max_lr - min_lr) * (step + 1) / (warmup + 1)
        return lr_at(step, warmup, total, max_lr, min_lr)

    r = run_check("07b.lr_at", from_min_lr)
    assert not r.passed and r.mistake == "07b.lr_at/warmup_from_min_lr", r.messages


def _softmax_no_max(x, t):  # by hand, without subtracting the row's max: exp overflows
    e = torch.exp(x / t)
    return e / e.sum(-1, keepdim=True)


def _greedy_last(x, t):  # the last of the tied largest logits
    last = x.size(-1) - 1 - x.flip(-1).argmax(-1)
    return F.one_hot(last, x.size(-1)).to(x.dtype)


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_greedy_or(_softmax_no_max), "overflow"),
        (
            lambda x, t: (
                (x == x.amax(-1, keepdim=True)).to(x.dtype) if t == 0 else F.softmax(x / t, -1)
            ),
            "ties",
        ),  # fmt: skip
        (lambda x, t: _greedy_last(x, t) if t == 0 else F.softmax(x / t, -1), "tie_last"),
        (lambda x, t: (x == x.max()).to(x.dtype) if t == 0 else F.softmax(x / t, -1), "global_max"),
        (lambda x, t: F.softmax(x / max(t, 1e-6), -1), "split"),
    ],
)
def test_temperature_more_mistakes(run_check, candidate, code):
    r = run_check("07b.temperature_probs", candidate)
    assert not r.passed and r.mistake == f"07b.temperature_probs/{code}", r.messages


def test_temperature_stable_softmax_by_hand_passes(run_check):
    def stable(x, t):
        if t == 0:
            return temperature_probs(x, 0)
        z = x / t
        e = torch.exp(z - z.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    r = run_check("07b.temperature_probs", stable)
    assert r.passed, r.messages


@pytest.mark.parametrize(
    "candidate, code",
    [
        (
            lambda x, k: x.masked_fill(
                x < x.kthvalue(min(k, x.size(-1)), -1, True).values, -math.inf
            ),
            "kth_smallest",
        ),  # fmt: skip
        (
            lambda x, k: x.masked_fill(
                x < x.sort(-1).values[..., min(k, x.size(-1)) - 1 :][..., :1], -math.inf
            ),
            "kth_smallest",
        ),  # fmt: skip
        (
            lambda x, k: x.masked_fill(
                x < x.flatten().topk(min(k, x.numel())).values[-1], -math.inf
            ),
            "whole_batch",
        ),  # fmt: skip
        (
            lambda x, k: x.masked_fill(
                x < x.topk(min(k, x.size(-1)), -1).values[..., -1], -math.inf
            ),
            "not_column",
        ),  # fmt: skip
    ],
)
def test_top_k_more_mistakes(run_check, candidate, code):
    r = run_check("07b.top_k_filter", candidate)
    assert not r.passed and r.mistake == f"07b.top_k_filter/{code}", r.messages


def _top_p_ascending(logits, p):
    s, idx = logits.sort(dim=-1)  # descending=True forgotten
    probs = s.softmax(-1)
    s = s.masked_fill(probs.cumsum(-1) - probs >= p, -math.inf)
    return torch.empty_like(logits).scatter(-1, idx, s)


def _top_p_unsorted_mask(logits, p):
    s, _ = logits.sort(dim=-1, descending=True)
    probs = s.softmax(-1)
    return logits.masked_fill(probs.cumsum(-1) - probs >= p, -math.inf)


def _top_p_no_sort(logits, p):
    probs = logits.softmax(-1)
    return logits.masked_fill(probs.cumsum(-1) - probs >= p, -math.inf)


@pytest.mark.parametrize(
    "candidate, code",
    [
        (_top_p(lambda c, q, p: c - q > p), "strict"),
        (_top_p_ascending, "ascending"),
        (_top_p_unsorted_mask, "mask_not_unsorted"),
        (_top_p_no_sort, "no_sort"),
    ],
)
def test_top_p_more_mistakes(run_check, candidate, code):
    r = run_check("07b.top_p_filter", candidate)
    assert not r.passed
    assert named_or_listed(r, "07b.top_p_filter", code, TOP_P_MISTAKES), r.messages


def test_top_p_first_case_tells_every_mistake_apart():
    """The first case is where most slips fail: there every known mistake keeps another set (so
    the one named is the one the code has), none the right one."""
    from helpers.checks import EXERCISES

    top_p_keep = module_of("07b.top_p_filter").top_p_keep

    probe = next(iter(EXERCISES["07b.top_p_filter"].probes(torch.Generator().manual_seed(0))))
    x, p = probe.args
    variants = ("right", "drops_crossing", "inverted", "on_logits", "ascending", "no_sort",
                "mask_not_unsorted", "wrong_dim")  # fmt: skip
    masks = {v: tuple(top_p_keep(x, p, variant=v).flatten().tolist()) for v in variants}
    assert len(set(masks.values())) == len(variants), masks


def test_top_p_exact_case_is_exact():
    """The case where the mass before a token is p exactly: float64 powers of 2, and the right
    filter (>=) and the strict one (>) differ there."""
    from helpers.checks import EXERCISES

    top_p_keep = module_of("07b.top_p_filter").top_p_keep
    EXACT_P_CASE = module_of("07b.top_p_filter").EXACT_P_CASE

    probes = EXERCISES["07b.top_p_filter"].probes(torch.Generator().manual_seed(0))
    x, p = next(pr for pr in probes if pr.name == EXACT_P_CASE).args
    s = x.sort(-1, descending=True).values.softmax(-1)
    assert ((s.cumsum(-1) - s)[:, 1] == p).all()
    assert not torch.equal(top_p_keep(x, p), top_p_keep(x, p, variant="strict"))
