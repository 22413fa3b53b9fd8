"""The reference as an error model (helpers/checks/edits/): it names an edit only when that edit
reproduces what the learner's code does on every case, and the true edit is then among those it
names; messages that see a symptom several mistakes share say so (issue 29, item 2)."""

import contextlib
import io
import math
import random

import pytest
import torch
import torch.nn.functional as F

from helpers import check
from helpers.checks import DEFAULT_SEED, EXERCISES, edits, probes
from helpers.checks.edits import search, source
from helpers.checks.run.runner import run_probe

CPU = torch.device("cpu")
#: exercises whose mutants are searched here (a function, a mask, modules built from parts)
SEARCHED = (
    "01.softmax",
    "02.scaled_dot_product_attention",
    "03.MultiHeadAttention",
    "05.LayerNorm",
    "07.TransformerDecoderBlock",
    "08.linear_attention",
)


@pytest.fixture
def unhurried(monkeypatch):
    """No time budget: a loaded machine must not decide what is found (the search's, and each
    mutant's run, which a timeout would record as its outcome; a cache of its own for that)."""
    monkeypatch.setattr(search, "BUDGET_S", 600.0)
    monkeypatch.setattr(source, "MUTANT_S", 60.0)
    monkeypatch.setattr(source, "_OUTCOMES", {})


def _pairs(ex, candidate):
    gen = torch.Generator().manual_seed(DEFAULT_SEED)
    return [(p, run_probe(ex, p, candidate, CPU)) for p in probes(ex, gen)]


@pytest.mark.parametrize("exercise", SEARCHED)
def test_when_edits_are_named_the_true_one_is_among_them(exercise, unhurried):
    """Each mutant (6, drawn at random) is one edit of the reference: whatever the search names for
    it, its own edit is among the edits found, and each edit found reproduces it."""
    ex = EXERCISES[exercise]
    reference, built = edits.mutants(ex)
    searched = 0
    for edit, mutant in random.Random(0).sample(built, len(built)):
        if searched == 6:
            break
        pairs = _pairs(ex, mutant)
        if any(o.error or o.missing for _, o in pairs):
            continue  # a mutant that raises: not a learner's output to explain
        if all(edits.distance(o.value, r.value) == 0 for (_, o), (_, r) in
               zip(pairs, _pairs(ex, reference))):  # fmt: skip
            continue  # equivalent to the reference
        found = edits.reproducing(ex, pairs)
        searched += 1
        assert edit.tag in {e.tag for e in found}, (edit.tag, [e.tag for e in found])
    assert searched >= 2, "too few mutants changed the output to test the search"


def test_a_correct_alternate_matches_no_edit(unhurried):
    """The reference itself is reproduced by no edit that changes its output."""
    ex = EXERCISES["02.scaled_dot_product_attention"]
    reference, _ = edits.mutants(ex)
    assert edits.reproducing(ex, _pairs(ex, reference)) == []


def _check(exercise, candidate):
    with contextlib.redirect_stdout(io.StringIO()):
        return check(exercise, candidate)


def test_a_swap_of_two_sibling_layers_is_named(unhurried):
    from helpers.blocks.multihead import MultiHeadAttention

    class Swapped(MultiHeadAttention):
        def forward(self, query, key=None, value=None, mask=None):
            key = query if key is None else key
            value = key if value is None else value
            q, k = self.split_heads(self.k_proj(query)), self.split_heads(self.q_proj(key))
            v = self.split_heads(self.v_proj(value))
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = self.dropout(torch.softmax(scores, dim=-1))
            return self.out_proj(self.merge_heads(weights @ v)), weights

    result = _check("03.MultiHeadAttention", Swapped)
    assert not result.passed and "`self.k_proj` and `self.q_proj` swapped" in result.messages[0]


def test_an_error_reproduced_by_an_edit_is_named(unhurried):
    """T taken from x.size(0), the batch: it raises where B != T, and the edit size(1) ->
    size(0) of the reference raises the same and gives the same outputs elsewhere."""
    from helpers.blocks.positional import PositionalEncoding

    class BatchAsLength(PositionalEncoding):
        def forward(self, x):
            return self.dropout(x + self.pe[: x.size(0)])

    result = _check("04.PositionalEncoding", BatchAsLength)
    assert not result.passed and "`size(0)` instead of `size(1)`" in result.messages[0]


# ------------------------------------------------------------- no wrong causes (issue 29)


def test_softmax_minus_the_min_is_not_told_it_subtracts_the_mean():
    def softmax(x, dim=-1):
        e = torch.exp(x - x.amin(dim=dim, keepdim=True))
        return e / e.sum(dim=dim, keepdim=True)

    message = _check("01.softmax", softmax).messages[0]
    assert "the mean or the min" in message and "Subtract the max" in message


def test_dropout_left_on_in_eval_is_told_so_not_sin_cos():
    from helpers.blocks.positional import PositionalEncoding

    class AlwaysDropping(PositionalEncoding):
        def forward(self, x):
            return F.dropout(x + self.pe[: x.size(1)], self.dropout.p, training=True)

    result = _check("04.PositionalEncoding", AlwaysDropping)
    assert result.mistake == "04.PositionalEncoding/dropout_in_eval", result.messages


def test_half_the_window_is_not_told_off_by_one():
    def sliding_window_mask(T, window, causal=False, device=None):
        i = torch.arange(T, device=device)
        d = i[:, None] - i[None, :]
        m = d.abs() <= window // 2
        return m & (d >= 0) if causal else m

    result = _check("08.sliding_window_mask", sliding_window_mask)
    assert not result.passed and "off by one" not in result.messages[0]


def test_nan_from_linear_attention_is_told_as_what_is_seen():
    """A causal sum that leaves out the query's own key gives 0/0 on the first query: the
    message says NaN was seen and what makes a denominator 0, not that the feature map is
    wrong."""

    def linear_attention(q, k, v, causal=False):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        kv = torch.einsum("...td,...te->...tde", k, v)
        kv = kv.cumsum(-3) if causal else kv.sum(-3, keepdim=True)
        z = k.cumsum(-2) if causal else k.sum(-2, keepdim=True)
        if causal:  # the running sums stop one key short
            kv, z = kv - torch.einsum("...td,...te->...tde", k, v), z - k
        num = torch.einsum("...td,...tde->...te", q, kv)
        return num / (q * z).sum(-1, keepdim=True)

    result = _check("08.linear_attention", linear_attention)
    assert not result.passed and "That is what is seen" in result.messages[0], result.messages


def test_a_detached_statistic_is_caught_by_its_gradient():
    from helpers.blocks.layers import LayerNorm

    class Detached(LayerNorm):
        def forward(self, x):
            mean = x.mean(-1, keepdim=True).detach()
            var = x.var(-1, keepdim=True, unbiased=False).detach()
            return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias

    result = _check("05.LayerNorm", Detached)
    assert result.mistake == "05.LayerNorm/wrong_gradient" and "`x`" in result.messages[0]


def test_a_buffer_left_out_of_state_dict_is_named():
    from helpers.blocks.positional import PositionalEncoding

    class NotSaved(PositionalEncoding):
        def __init__(self, d_model, max_len=5000, dropout=0.0):
            super().__init__(d_model, max_len, dropout)
            pe = self.pe
            del self.pe
            self.register_buffer("pe", pe, persistent=False)

    result = _check("04.PositionalEncoding", NotSaved)
    assert result.mistake == "04.PositionalEncoding/buffer_not_saved", result.messages


def test_every_edit_of_a_reference_has_its_own_tag():
    """Outcomes are cached by tag: two edits must never share one (two `1`s on a line)."""
    for ex in EXERCISES.values():
        _, built = edits.mutants(ex)
        tags = [e.tag for e, _ in built]
        assert len(tags) == len(set(tags)), ex.id


def test_an_inner_time_limit_keeps_the_outer_one():
    """The search's 0.2 s limit per mutant runs inside the mutation tool's limit on a whole
    check: the outer one still fires after the inner one is done."""
    import time

    with pytest.raises(TimeoutError, match="after 0.5 s"), edits.time_limit(0.5):
        with edits.time_limit(0.1):
            pass
        start = time.monotonic()
        while time.monotonic() - start < 5:
            pass


def test_operands_swapped_is_a_swap():
    """`a - b` -> `b - a`: both sides read before either is written (it once gave `b - b`)."""
    import ast

    tree = ast.parse("def f(a, b):\n    return a - b / c\n")
    made = {e.tag: edits.mutant_source(tree, e) for e in edits.edits(tree)}
    assert "return b / c - a" in made["L2 Sub operands swapped"], made
    assert "return a - c / b" in made["L2 Div operands swapped"], made
    assert "return a - b // c" in made["L2 Div -> FloorDiv"], made  # integer division


def test_integer_division_is_named_by_the_search():
    """07b.lr_at's t with `//` (set F's f26): one step cannot tell it from a decay stuck at
    max_lr, every step together can, and the edit that reproduces them all is named."""

    def lr_at(step, warmup, total, max_lr, min_lr):
        if step < warmup:
            return max_lr * (step + 1) / (warmup + 1)
        if step > total:
            return min_lr
        t = (step - warmup) // (total - warmup)
        return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))

    r = check("07b.lr_at", lr_at, quiet=True)
    assert r.mistake == "07b.lr_at/edit_l8_div_floordiv" and "`//` instead of `/`" in r.messages[0]
