"""Diagnosis by property: name a mistake nobody listed, from what the output *does*.

Known mistakes stay in the exercises' tables (``expect_close(..., mistakes=...)``); the
properties here speak only when none of them matched, so that the generic "does not match the
reference: largest error ..." becomes rare. Two kinds, one API (stable; add, never change):

Judge side (the grader's own process; float64 references allowed):

    diagnose(got, ref, what, *, dims=None, factors=None, weights=False, hint="") -> Fail | None
        Compare the learner's tensor with the reference and name how they differ: NaN/inf where
        the reference is finite (``hint``: the stable formula, e.g. STABLE["softmax"]); the
        reference with its dimensions in another order (``dims``: their names, e.g.
        ("B", "H", "T", "d_head")); a constant factor (``factors``: {"sqrt(d_model)": 4.0, ...},
        the names of the factors a learner could have used by mistake; message: "... is
        sqrt(d_model) times ..."); a constant offset; for attention weights (``weights=True``)
        a softmax of the scores times a constant (the scores divided by the wrong number,
        ``factors`` names it) and rows that do not sum to 1. ``expect_close`` calls it before
        its generic message (checks/__init__.py lists it in ``framework.DIAGNOSES``), so every
        table-driven judge gets it for free.

Relations (the runner's half is ``run/relations.py``; probes built with its ``props(probe,
*relations)``: "batch", "masked", "meta"):

    class PropertyMixin            an Exercise mixin whose ``judge`` runs the exercise's own
                                   ``judge_value``, then checks the relations when it found no
                                   named mistake (judge_relations)

Every finding is a :class:`Fail` with a mistake code and a sentence a learner can act on.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import torch

from .framework import Fail, agree, close
from .run.relations import base_runner

#: the stable formula to name when an output turns NaN/inf at large magnitudes (``hint``)
STABLE = {
    "softmax": "exp overflows once the scores are large: subtract the max along the softmax "
    "dim first, exp(s - s.amax(dim, keepdim=True)) (softmax does not change).",
    "online_softmax": "start the running max at -inf, not 0 (when every score is very "
    "negative, exp(s - 0) underflows to 0 and l = 0 gives 0/0), and rescale with "
    "exp(m_old - m_new), which is at most 1.",
    "variance": "E[x²] - E[x]² loses every digit under a large offset in float32: compute "
    "the mean first, then ((x - mean) ** 2).mean(...).",
}

#: the mistake code of each STABLE hint (diagnose gives "not_finite" for another hint)
STABLE_CODES = {
    "softmax": "unstable_softmax",
    "online_softmax": "running_max_from_zero",
    "variance": "unstable_variance",
}


# --------------------------------------------------------------------------- judge side


def diagnose(
    got: torch.Tensor,
    ref: torch.Tensor,
    what: str = "the output",
    *,
    dims: tuple[str, ...] | None = None,
    factors: dict[str, float] | None = None,
    weights: bool = False,
    hint: str = "",
) -> Fail | None:
    """A :class:`Fail` naming how ``got`` differs from ``ref`` by one property, or None."""
    g, r = got.double(), ref.double()
    if g.shape == r.shape and close(g, r, 1e-5, 1e-4):
        return _float32_sized(got, r, what)

    found = _permuted(g, r, what, dims)
    if found or g.shape != r.shape:
        return found
    if not torch.isfinite(g).all() and torch.isfinite(r).all():
        bad = "NaN" if torch.isnan(g).any() else "inf"
        code = next((STABLE_CODES[k] for k, t in STABLE.items() if t == hint), "not_finite")
        return Fail(
            f"{what} {agree(what, 'contains')} {bad} where the expected values "
            "are finite" + (f". One common cause: {hint}" if hint else "."),
            code,
        )
    if not torch.isfinite(g).all() or not torch.isfinite(r).all():
        return None
    if weights:
        found = _temperature(g, r, what, factors or {}) or _rows(g, what)
        if found:
            return found
    if r.numel() < 2:  # one number is some factor of, and some offset from, any other
        return None
    return _factor(g, r, what, factors or {}) or _offset(g, r, what)


#: float32's unit roundoff (2**-24); a float64 output off by a few of these, relative to the
#: reference's scale, went through float32 (a float64 slip is 2**-53, 9 digits smaller)
FLOAT32_ROUNDOFF = 2.0**-24


def _float32_sized(got, r, what) -> Fail | None:
    """A float64 output whose error is the size of float32 rounding (between a quarter and 16
    roundoffs of the reference's largest value: a float64 slip is far smaller, a wrong
    constant such as an eps larger): named as such."""
    if got.dtype != torch.float64 or not torch.isfinite(r).all() or got.shape != r.shape:
        return None
    err = float((got.double() - r).abs().max())
    scale = float(r.abs().max()) or 1.0
    if not FLOAT32_ROUNDOFF / 4 * scale < err <= 16 * FLOAT32_ROUNDOFF * scale:
        return None
    return Fail(
        f"{what} {agree(what, 'is')} right only to float32 precision (largest error {err:.3g}, "
        f"about {err / scale / FLOAT32_ROUNDOFF:.2g} float32 roundings of its largest value) "
        "although the inputs are float64: the computation drops to float32 somewhere (a "
        ".float(), a torch.tensor(...) or torch.zeros(...) made without dtype=, a dtype= "
        "float32). Keep the inputs' dtype throughout (dtype=x.dtype, torch.*_like).",
        "float32_inside",
    )


def _permuted(g, r, what, dims) -> Fail | None:
    if g.dim() != r.dim() or g.dim() > 5 or sorted(g.shape) != sorted(r.shape):
        return None
    names = dims if dims and len(dims) == r.dim() else tuple(f"dim {i}" for i in range(r.dim()))
    for perm in itertools.permutations(range(r.dim())):
        moved = [i for i in perm if r.shape[i] > 1]
        if moved == sorted(moved) or r.permute(perm).shape != g.shape:
            continue  # only size-1 dims moved: not a permutation a learner could get wrong
        if close(g, r.permute(perm), 1e-4, 1e-3):
            order = ", ".join(names[i] for i in perm)
            return Fail(
                f"{what} {agree(what, 'holds')} the right values with its dimensions in another "
                "order: "
                f"({order}) instead of ({', '.join(names)}). Check the transpose/permute/view "
                "that arranges them.",
                "dims_permuted",
            )
    return None


def _fit_factor(g, r) -> float | None:
    denom = float((r * r).sum())
    return None if denom == 0 else float((g * r).sum()) / denom


def _name_factor(c: float, factors: dict[str, float]) -> str:
    for name, value in factors.items():
        if value and math.isclose(c, value, rel_tol=1e-3):
            return name
    return f"{c:.4g}"


def _factor(g, r, what, factors) -> Fail | None:
    c = _fit_factor(g, r)
    if c is None or abs(c - 1) < 1e-3 or abs(c) < 1e-6 or not close(g, c * r, 1e-5, 1e-4):
        return None
    if math.isclose(c, -1, rel_tol=1e-3):
        return Fail(
            f"{what} {agree(what, 'has')} the sign flipped (-1 times the expected one): "
            "a minus is missing or extra somewhere (a difference taken the wrong way round).",
            "negated",
        )
    return Fail(
        f"{what} {agree(what, 'is')} {_name_factor(c, factors)} times the expected one: a "
        "constant factor is wrong (a scale, a division, a sum where a mean belongs).",
        "constant_factor",
    )


def _offset(g, r, what) -> Fail | None:
    d = (g - r).mean()
    if abs(float(d)) < 1e-6 or not close(g, r + d, 1e-5, 1e-4):
        return None
    return Fail(
        f"{what} {agree(what, 'is')} the expected one plus a constant {float(d):.4g}: a term "
        "is added that does not belong (or one is missing).",
        "constant_offset",
    )


def _temperature(g, r, what, factors) -> Fail | None:
    """``g`` = softmax(c * scores) when ``r`` = softmax(scores): log g = c log r + row const."""
    sums = g.sum(-1)
    if (g < 0).any() or not close(sums, torch.ones_like(sums), 1e-4, 1e-4) or g.shape[-1] < 2:
        return None
    live = r > 1e-12  # masked keys are 0 in both
    if not torch.equal(live, g > 1e-12):
        return None
    lr = torch.where(live, r.log(), 0.0)
    lr = lr - (lr * live).sum(-1, keepdim=True) / live.sum(-1, keepdim=True).clamp(min=1)
    c = _fit_factor(torch.where(live, g.clamp(min=1e-300).log(), 0.0), lr)
    if c is None or abs(c - 1) < 1e-3 or c <= 0:
        return None
    cand = torch.where(live, c * lr, -math.inf).softmax(-1).nan_to_num()
    if not close(g, cand, 1e-5, 1e-3):
        return None
    return Fail(
        f"{what} {agree(what, 'is')} a softmax of the scores multiplied by "
        f"{_name_factor(c, factors)}: the scores are divided by the wrong number (the scale "
        "is 1 / sqrt(d_k), d_k the size of one query or key, per head).",
        "wrong_scale",
    )


def _rows(g, what) -> Fail | None:
    sums = g.sum(-1)
    if close(sums, torch.ones_like(sums), 1e-4, 1e-4):
        return None
    return Fail(
        f"the rows of {what} do not sum to 1 (e.g. {float(sums.flatten()[0]):.4g}): each "
        "query's weights over the keys are a softmax over the last dim.",
        "rows_not_normalized",
    )


class PropertyMixin:
    """The judge of an exercise whose probes are built with ``run.relations.props``: the
    exercise's own ``judge_value`` on the plain output, then the relations. A failure without a
    mistake code gives way to the first relation that does not hold, which names the mistake."""

    def judge(self, probe, out):
        if not probe.runner.startswith("props:"):
            return self.judge_value(probe, out)
        if not isinstance(out, dict) or "out" not in out:
            raise Fail("internal: unexpected runner output.")
        base = dataclasses.replace(probe, runner=base_runner(probe))
        try:
            self.judge_value(base, out["out"])
        except Fail as fail:
            if fail.code:
                raise
            raise judge_relations(probe, out) or fail from None
        found = judge_relations(probe, out)
        if found:
            raise found


def _tensors(x) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def judge_relations(probe, out: dict) -> Fail | None:
    """The first relation of a "props" probe's outcome that does not hold, as a Fail."""
    whole = _tensors(out["out"])
    for rel in probe.runner.partition(":")[2].split(","):
        res = out.get(rel)
        if isinstance(res, dict) and "error" in res:
            if rel == "meta" and "meta" in res["error"] and "cpu" in res["error"]:
                return Fail(
                    "with the inputs on another device (the check uses device 'meta'), your "
                    "code mixes them with a tensor made on the default device (CPU): create "
                    "running state and constants on the input's device, torch.zeros(..., "
                    "device=q.device, dtype=q.dtype), torch.full_like, q.new_zeros(...).\n   "
                    + res["error"],
                    "state_on_default_device",
                )
            continue  # an operation the meta device cannot run is not the learner's mistake
        if rel == "meta" and res and res["devices"] not in ([], ["meta"]):
            return Fail(
                "with the inputs on device 'meta', the output is on "
                f"{', '.join(res['devices'])}: create new tensors on the input's device "
                "(device=x.device, torch.*_like, x.new_zeros).",
                "output_on_default_device",
            )
        if rel == "batch" and res is not None:
            for b, part in enumerate(res):
                for w, p in zip(whole, _tensors(part)):
                    if w.shape[0] > b and not close(w[b : b + 1], p, 1e-4, 1e-3):
                        return Fail(
                            f"batch element {b} alone gives another result than in the batch: "
                            "your code mixes the batch elements (an operation over dim 0, a "
                            "view/reshape that merges the batch with another dim, or .T on a "
                            "batched tensor). Every batch element must be computed on its own.",
                            "batch_mixing",
                        )
        if rel == "masked" and res is not None:
            if not all(close(w, p, 1e-5, 1e-4) for w, p in zip(whole, _tensors(res))):
                return Fail(
                    "changing the keys and values that the mask blocks (mask False for every "
                    "query) changes the output: blocked keys must get weight exactly 0. Fill "
                    "their scores with -inf before softmax, scores.masked_fill(~mask, "
                    "float('-inf')).",
                    "mask_not_respected",
                )
    return None
