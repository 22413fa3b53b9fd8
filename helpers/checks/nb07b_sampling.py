"""Notebook 07b, part 2: sampling the next token (temperature, top-k, top-p).

A filter's answer is judged by which logits it keeps: each kept logit must be the input's, each
other one -inf. The known wrong variants are the same filters with one switch flipped
(nb07b_reference.py); a case's ties and its p are chosen so that one slip shows in each.
"""

from __future__ import annotations

import math
import re

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_like,
    expect_tensor,
    randn,
    register,
    slips,
)
from .nb07b_reference import (
    far_from_p,
    temperature64,
    top_k_keep,
    top_p_keep,
    top_p_sorted_variants,
)

# --------------------------------------------------------------------------- temperature

TEMPERATURE_MISTAKES = {
    "multiplied": "the logits are multiplied by the temperature: divide them, "
    "softmax(logits / temperature), so that a low temperature sharpens the distribution.",
    "ignored": "the temperature is ignored: softmax(logits / temperature).",
    "logits": "the output is logits / temperature, not probabilities: apply softmax over the "
    "last dim.",
    "log_softmax": "the output is log-probabilities (log_softmax): return the probabilities, "
    "softmax.",
    "wrong_dim": "the softmax runs over the wrong dim: each row of the vocabulary (the last "
    "dim, dim=-1) must sum to 1.",
}

GREEDY_MISTAKES = {
    "ties": "with temperature 0 a row whose largest logit ties gets a 1 at each tied logit (the "
    "row sums to more than 1), as logits == max gives: greedy is one-hot, a single 1 at the "
    "first of the largest logits, as argmax returns (F.one_hot(logits.argmax(-1), V)).",
    "tie_last": "with temperature 0 and a tie for the largest logit, the 1 is at the last of the "
    "tied logits: greedy takes the first of them, as argmax returns.",
    "global_max": "with temperature 0 the 1 goes where a logit equals the largest of the whole "
    "tensor (logits.max()), not of each row: the other rows are all zeros and sum to 0. Take "
    "the argmax of each row, logits.argmax(dim=-1).",
    "split": "with temperature 0 row {row} is not one-hot: its mass is split ({values}) over "
    "logits that tie or nearly tie for the largest, as a tiny temperature (an epsilon such as "
    "1e-6) does. Temperature 0 is greedy by definition: a single 1 at the argmax (the first of "
    "tied logits), F.one_hot(logits.argmax(-1), V).",
    "overflow": "the probabilities contain {bad}: exp(logits / temperature) overflows to inf "
    "(logits / temperature reach {top:.0f} here, exp overflows above {limit:.0f} in {dtype}) "
    "and inf / inf is NaN. Subtract each row's max before exp (the softmax does not change), "
    "or use F.softmax / torch.softmax, which do it for you.",
}


def greedy_mistake(got: torch.Tensor, x: torch.Tensor) -> Fail | None:
    """The mistake of a temperature-0 answer that is not the argmax's one-hot, if known."""
    g = got.double()
    codes = [
        v
        for v in ("ties", "tie_last", "global_max")
        if torch.isclose(g, temperature64(x, 0, variant=v), atol=1e-6).all()
    ]
    if len(codes) == 1:
        return Fail(GREEDY_MISTAKES[codes[0]], codes[0])
    xd = x.double().flatten(0, -2)
    rows = g.flatten(0, -2)
    near = (xd.amax(-1, keepdim=True) - xd) < 1e-3  # the largest logit and those close to it
    fractional = (rows > 1e-3) & (rows < 1 - 1e-3)
    for r in range(rows.size(0)):
        if fractional[r].any() and (fractional[r] <= near[r]).all():
            values = ", ".join(f"{v:.3g}" for v in rows[r][fractional[r]].tolist())
            return Fail(GREEDY_MISTAKES["split"].format(row=r, values=values), "split")
    return None


def overflow_mistake(got: torch.Tensor, x: torch.Tensor, temperature: float) -> Fail | None:
    """NaN or inf where the reference has none, in a case where exp(logits / T) overflows."""
    if torch.isfinite(got).all() or temperature == 0:
        return None
    scaled = x.double() / temperature
    top = float(scaled[torch.isfinite(scaled)].abs().max())
    limit = math.log(torch.finfo(x.dtype).max)
    if top <= limit:
        return None
    bad = "NaN" if torch.isnan(got).any() else "inf"
    fields = {"bad": bad, "top": top, "limit": limit, "dtype": str(x.dtype).split(".")[-1]}
    return Fail(GREEDY_MISTAKES["overflow"].format(**fields), "overflow")


@register
class TemperatureProbsCheck(Exercise):
    id = "07b.temperature_probs"
    title = "temperature"
    points = 1.0

    def probes(self, gen):
        x = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
        yield Probe("logits [2, 1, 0, -1], temperature 1", args=(x, 1.0))
        yield Probe("random (3, 7), temperature 0.5", args=(randn(3, 7, generator=gen), 0.5))
        yield Probe("random (2, 2, 6), temperature 2", args=(randn(2, 2, 6, generator=gen), 2.0))
        yield Probe("random (4, 5), float64, temperature 0.8",
                    args=(randn(4, 5, dtype=torch.float64, generator=gen), 0.8))  # fmt: skip
        yield Probe("random (3, 6), temperature 0 (greedy)", args=(randn(3, 6, generator=gen), 0))
        y = randn(2, 5, generator=gen)
        y[0, 1] = -math.inf  # a logit a filter removed
        yield Probe("a -inf logit (removed by a filter), temperature 0.7", args=(y, 0.7))
        near = float(torch.tensor(1.0).nextafter(torch.tensor(2.0)))  # 1 + 2^-23 in float32
        ties = torch.tensor(
            [[0.5, 2.0, -1.0, 2.0, 1.0], [1.0, near, 0.0, -2.0, 0.5], [0.0, 3.0, 1.0, 3.0, 3.0]]
        )
        yield Probe("ties and a near tie for the largest logit, temperature 0", args=(ties, 0))
        big = torch.tensor([[60.0, 55.0, 10.0, -5.0], [-3.0, 0.0, 45.0, 44.0]])
        yield Probe("large logits (up to 60), temperature 0.5", args=(big, 0.5))

    def judge(self, probe, out):
        x, temperature = probe.args
        got = expect_tensor(out, "the probabilities")
        if temperature == 0 and tuple(got.shape) == tuple(x.shape[:-1]):
            raise Fail(
                "with temperature 0 the output is the argmax's index: return a distribution, a "
                "one-hot row with 1 at the argmax (F.one_hot(logits.argmax(-1), V).to(dtype)).",
                "index_not_one_hot",
            )
        expect_like(got, x.shape, x.dtype)
        if temperature == 0 and torch.isnan(got).any():
            raise Fail(
                "with temperature 0 the output is NaN (logits / 0): temperature 0 means greedy, "
                "a one-hot row with 1 at the argmax of each row.",
                "zero_temperature_nan",
            )
        ref = temperature64(x, temperature)
        if temperature == 0 and not torch.isclose(got.double(), ref, atol=1e-6).all():
            found = greedy_mistake(got, x)
            if found is not None:
                raise found
        found = overflow_mistake(got, x, temperature)
        if found is not None:
            raise found
        mistakes = [
            (lambda v=v: temperature64(x, temperature, variant=v), m, v)
            for v, m in TEMPERATURE_MISTAKES.items()
        ]
        expect_close(got, ref, "the probabilities", mistakes=mistakes)


# --------------------------------------------------------------------------- filters

FILTER_FILL = {
    "zero_fill": "the removed logits are set to 0, and softmax still gives them probability "
    "(exp(0) = 1): set them to float('-inf').",
    "finite_fill": "the removed logits are set to a large negative number: set them to "
    "float('-inf') (exactly 0 probability, and a value nothing can mistake for a logit).",
}

TOP_K_MISTAKES = {
    "strict": "the k-th largest logit is removed too, so fewer than k are left: keep every "
    "logit >= the k-th largest (remove logits < it, not <=), with k = min(k, vocabulary size).",
    "k_plus_one": "k + 1 logits are kept: keep the k largest (the k-th largest is "
    "torch.topk(logits, k).values[..., -1:]).",
    "smallest": "the k smallest logits are kept: keep the k largest.",
    "exactly_k": "with a tie at the k-th largest value only some of the tied logits are kept "
    "(the indices torch.topk returns): keep every logit >= the k-th largest, ties included.",
    "wrong_dim": "the logits kept are those a filter over the wrong dim (dim 0) keeps: keep "
    "the k largest of each row of the vocabulary, the last dim.",
    "kth_smallest": "the threshold is the k-th smallest logit of the row (torch.kthvalue counts "
    "from the smallest, and so does an ascending sort's [k - 1]), not the k-th largest: far "
    "too many logits stay. Use torch.topk(logits, k).values[..., -1:], or a descending sort.",
    "whole_batch": "one threshold for the whole batch (the k-th largest of all the logits, "
    "flattened): filter each row on its own, torch.topk(logits, k, dim=-1), so that every row "
    "keeps its k largest.",
    "not_column": "the k-th largest of each row has shape (...,), not a column (..., 1): "
    "compared with the logits it broadcasts along the vocabulary, and each logit meets another "
    "row's threshold. Keep the last dim, values[..., -1:] (or keepdim=True).",
}

TOP_P_MISTAKES = {
    "drops_crossing": "the token whose probability carries the total past p is removed: keep "
    "it. The nucleus is the smallest set whose probability reaches p (so it always holds the "
    "most likely token); remove a token when the probability of the tokens before it is "
    ">= p, (cum - probs) >= p.",
    "inverted": "the mask is inverted: the most likely tokens are removed and the tail is kept.",
    "on_logits": "the cumulative sum runs over the sorted logits: sum the probabilities, "
    "softmax of the sorted logits.",
    "wrong_dim": "the filter works over the wrong dim: sort, softmax and sum over the last dim "
    "(the vocabulary) of each row.",
    "softmax_dim": "the softmax of the sorted logits runs over the wrong dim (dim 0, across the "
    "rows): each row's probabilities come from its own logits, softmax(dim=-1).",
    "not_unsorted": "the result is in sorted order: put each logit back at its token's place "
    "(scatter with the sort's indices, or index with their argsort).",
    "gather_not_scatter": "the sorted logits are put back with gather(-1, indices), which "
    "sorts them once more: use scatter(-1, indices, ...), the inverse permutation.",
    "strict": "a token is kept although the probability of the tokens before it already "
    "equals p exactly: remove it when that mass reaches p, (cum - probs) >= p, not > p. The "
    "nucleus is the smallest set reaching p; here one token too many stays.",
    "ascending": "the tokens kept are those a row sorted ascending keeps (the least likely "
    "summed first and kept, the most likely removed): sort descending, "
    "logits.sort(dim=-1, descending=True), sum the probabilities with cumsum, and remove a "
    "token once the mass before it reaches p.",
    "no_sort": "the probabilities are summed in the vocabulary's order, not sorted: the kept "
    "tokens are the first of the vocabulary, not the most likely. Sort each row descending "
    "first, then put each logit back at its token's position.",
    "mask_not_unsorted": "the removal mask is built in sorted order and applied to the logits in "
    "their own order: its positions are ranks, not tokens. Apply it to the sorted logits and "
    "put them back with scatter(-1, indices, ...) (or scatter the mask back first).",
}


def judge_filter(got_out, x: torch.Tensor, keep: torch.Tensor, masks, values, messages) -> None:
    """A filter's output: the logits where ``keep``, -inf elsewhere. ``masks``: (variant keep
    mask, code) of the wrong filters; ``values``: (wrong output, code)."""
    got = expect_tensor(got_out, "the filtered logits")
    expect_like(got, x.shape, x.dtype)
    xd = x.double()
    ref = xd.masked_fill(~keep, -math.inf)

    def same(a: torch.Tensor) -> bool:
        return bool(torch.isclose(got.double(), a, rtol=1e-6, atol=1e-7).all())

    if same(ref):
        return
    if torch.isnan(got).any():
        raise Fail("the filtered logits contain NaN.", "not_finite")
    # a known mistake is named only when it alone gives this answer (two that give the same
    # answer here are left to the generic message: it must not name a cause the code lacks)
    found = [c for m, c in masks if m is not None and m.shape == keep.shape
             and same(xd.masked_fill(~m, -math.inf))]  # fmt: skip
    found += [c for v, c in values if v.shape == xd.shape and same(v)]
    heads = slips(found, messages, most=3)
    if same(xd):  # what many slips give (a mask never applied, a filter that keeps all)
        raise Fail(
            f"no logit is removed: the output is the logits as they came, where "
            f"{int((~keep).sum())} of the {keep.numel()} are removed here"
            + (f" (slips that give this here: {heads}; or a mask never applied)" if heads else "")
            + ". Set the removed ones to -inf (logits.masked_fill(remove, float('-inf'))) and "
            "return that.",
            None if heads else "nothing_removed",  # several causes: the edit search may name one
        )
    if len(set(found)) == 1:
        raise Fail(messages[found[0]], found[0])
    # several: said as what is known (the edit search may then name one)
    known = (
        f"your output is what each of these slips gives on this case: {heads}. " if heads else ""
    )
    if same(xd.masked_fill(~keep, 0.0)):
        raise Fail(FILTER_FILL["zero_fill"], "zero_fill")
    removed = got.double()[~keep]
    if (
        removed.numel()
        and torch.isfinite(removed).all()
        and (removed < -1e4).all()
        and same(torch.where(keep, xd, got.double()))
    ):
        raise Fail(FILTER_FILL["finite_fill"], "finite_fill")
    kept_got = torch.isfinite(got) & torch.isclose(got.double(), xd, rtol=1e-6, atol=1e-7)
    changed = torch.isfinite(got) & ~kept_got
    if changed.any():
        raise Fail(
            "some logits are changed, not kept: keep each logit as it is (no softmax, no "
            "scaling) and set the removed ones to -inf.",
            "values_changed",
        )
    row = int((kept_got != keep).flatten(0, -2).any(-1).nonzero()[0, 0])
    flat_x, flat_keep, flat_got = x.flatten(0, -2), keep.flatten(0, -2), kept_got.flatten(0, -2)
    raise Fail(
        f"{known}row {row} keeps {int(flat_got[row].sum())} logits, expected "
        f"{int(flat_keep[row].sum())}"
        f" (logits {[round(v, 3) for v in flat_x[row].tolist()]}; kept: "
        f"{flat_got[row].nonzero().flatten().tolist()}, expected "
        f"{flat_keep[row].nonzero().flatten().tolist()})."
    )


@register
class TopKFilterCheck(Exercise):
    id = "07b.top_k_filter"
    title = "top-k filtering"
    points = 1.0

    def probes(self, gen):
        yield Probe("logits [2, -1, 0.5, 3, 0], k = 2",
                    args=(torch.tensor([[2.0, -1.0, 0.5, 3.0, 0.0]]), 2))  # fmt: skip
        yield Probe("random (4, 10), k = 3", args=(randn(4, 10, generator=gen), 3))
        yield Probe("random (2, 3, 7), k = 1", args=(randn(2, 3, 7, generator=gen), 1))
        ties = torch.tensor([[1.0, 2.0, 2.0, 0.0, 3.0], [0.5, 0.5, 0.5, -1.0, 2.0]])
        yield Probe("ties at the k-th largest, k = 2", args=(ties, 2))
        yield Probe("k = 10 larger than the vocabulary (6)", args=(randn(3, 6, generator=gen), 10))
        yield Probe("random (2, 9), float64, k = 4",
                    args=(randn(2, 9, dtype=torch.float64, generator=gen), 4))  # fmt: skip
        yield Probe("random (5, 5), k = 2 (as many rows as logits)",
                    args=(randn(5, 5, generator=gen), 2))  # fmt: skip

    def explain_error(self, probe, error):
        x, k = probe.args
        sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
                          error)  # fmt: skip
        if x.dim() > 1 and sizes and {int(n) for n in sizes.groups()} == {x.size(-1), x.size(-2)}:
            return Fail(TOP_K_MISTAKES["not_column"], "not_column")
        if k > x.size(-1) and ("out of range" in error or "selected index" in error):
            return Fail(
                f"k = {k} is larger than the vocabulary ({x.size(-1)}) and torch.topk raised: "
                "use k = min(k, logits.size(-1)); then every logit is kept.",
                "k_larger_than_vocab",
            )
        return None

    def judge(self, probe, out):
        x, k = probe.args
        keep = top_k_keep(x, k)
        variants = ("strict", "k_plus_one", "smallest", "exactly_k", "kth_smallest")
        if x.dim() > 1:  # these need two dims
            variants += ("wrong_dim", "whole_batch", "not_column")
        masks = [(top_k_keep(x, k, variant=v), v) for v in variants]
        judge_filter(out, x, keep, masks, [], TOP_K_MISTAKES)


def _logits_far_from_p(gen, shape, p, scale=2.0):
    """Random logits whose cumulative probabilities all keep away from p."""
    while True:
        x = randn(*shape, generator=gen) * scale
        if far_from_p(x, p):
            return x


@register
class TopPFilterCheck(Exercise):
    id = "07b.top_p_filter"
    title = "top-p (nucleus) filtering"
    points = 2.0

    def probes(self, gen):
        # the notebook's example, and the same shuffled with 2 added to the logits (the same
        # probabilities): each known mistake keeps another set here
        x = torch.tensor([[math.log(q) for q in (0.5, 0.3, 0.15, 0.05)],
                          [math.log(q) + 2 for q in (0.05, 0.3, 0.5, 0.15)]])  # fmt: skip
        yield Probe("probabilities [0.5, 0.3, 0.15, 0.05] (and shuffled), p = 0.7", args=(x, 0.7))
        yield Probe("random (4, 10), p = 0.9", args=(_logits_far_from_p(gen, (4, 10), 0.9), 0.9))
        w = _logits_far_from_p(gen, (2, 3, 8), 0.5)
        yield Probe("random (2, 3, 8), p = 0.5", args=(w, 0.5))
        y = _logits_far_from_p(gen, (3, 6), 0.05, scale=1.0)
        yield Probe("p = 0.05, below the top probability: the top token alone", args=(y, 0.05))
        yield Probe("p = 1.0: every token", args=(randn(2, 7, generator=gen), 1.0))
        z = _logits_far_from_p(gen, (2, 9), 0.8).double()
        yield Probe("random (2, 9), float64, p = 0.8", args=(z, 0.8))
        # powers of 2 in float64: the softmax and the mass before the second token are exact
        # (float32 logits log(q) are not: the reference would see 0.5 + 3e-9 where float32
        # rounds to 0.5)
        exact = torch.tensor([[math.log(q) for q in (0.5, 0.25, 0.125, 0.125)],
                              [math.log(q) for q in (0.125, 0.5, 0.125, 0.25)]],
                             dtype=torch.float64)  # fmt: skip
        yield Probe(EXACT_P_CASE, args=(exact, 0.5))

    def judge(self, probe, out):
        x, p = probe.args
        keep = top_p_keep(x, p)
        variants = ("drops_crossing", "inverted", "on_logits", "strict", "ascending", "no_sort",
                    "mask_not_unsorted")  # fmt: skip
        variants += ("wrong_dim", "softmax_dim") if x.dim() > 1 else ()  # they need two dims
        masks = [(top_p_keep(x, p, variant=v), v) for v in variants]
        values = [(v, code) for code, v in top_p_sorted_variants(x, p).items()]
        judge_filter(out, x, keep, masks, values, TOP_P_MISTAKES)


EXACT_P_CASE = (
    "float64 probabilities [0.5, 0.25, 0.125, 0.125] (exact in binary), p = 0.5: the mass "
    "before the second token is exactly p"
)
