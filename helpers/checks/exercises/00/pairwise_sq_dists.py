"""00.pairwise_sq_dists: all pairwise squared distances, with no loop (its check)."""

from __future__ import annotations

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    fmt_shape,
    randn,
    register,
)
from ...mistakes import variants
from ...probes import ambiguous_bool, same_error, transpose_all
from ...run.runner import DEVICE_ERRORS

#: what a and b were each moved by, where the output is the distances after moving them
#: by two different vectors: (a's, b's, what was seen)
SHIFTS = (
    ("a", "b", "a and b are each moved by their own mean"),
    ("a", None, "a is moved by its mean and b is not"),
    (None, "b", "b is moved by its mean and a is not"),
    ("b", None, "a is moved by b's mean and b is not"),
    (None, "a", "b is moved by a's mean and a is not"),
)


NOT_COMMON_SHIFT = (
    "{seen}: these are the distances between the moved points, and a distance stays the same "
    "only when both points move by the same vector. Subtract one common centre (b's mean, "
    "say) from both a and b."
)


def sq_dists64(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Reference: float64, from the differences (no cancellation). The catalogue's wrong
    programs are edits of it, or the expansion written out (exercises/00/catalogue.py)."""
    diff = a.double()[..., :, None, :] - b.double()[..., None, :, :]  # (..., N, M, d)
    return (diff**2).sum(-1)


#: the name of the first case with leading batch dims (the ones before it are 2-D)
BATCH = "batch:"


def _cancelled(got: torch.Tensor, ref: torch.Tensor, a: torch.Tensor, b: torch.Tensor):
    """A Fail where ``got`` is off by about what float32 rounding of ||a||² + ||b||² - 2 a·b
    gives for points far from the origin (catastrophic cancellation), else None."""
    if got.dtype != torch.float32:
        return None
    big = (a.double() ** 2).sum(-1).amax() + (b.double() ** 2).sum(-1).amax()
    err = (got.double() - ref).abs().max().item()
    if err > 64 * torch.finfo(torch.float32).eps * big.item():
        return None  # more than rounding: some other mistake
    return Fail(
        f"off by up to {err:.2g} for points far from the origin (entries near "
        f"{a.abs().mean().item():.0f}), though your answer is right near 0: ||a||² + ||b||² - "
        "2 a·b subtracts large numbers that agree in their first digits (near "
        f"{big.item() / 2:.1e} for these points as they are), and float32 keeps about 7 "
        "(catastrophic cancellation). Distances do not change when every point moves by the "
        "same vector: bring the points near the origin first, subtracting one common centre "
        "close to them (b's mean, say) from both a and b, as softmax subtracts the max.",
        "cancellation",
    )


@register
class PairwiseSqDistsCheck(Exercise):
    id = "00.pairwise_sq_dists"
    title = "all pairwise squared distances, with no loop"
    points = 2.0
    reference64 = staticmethod(sq_dists64)
    forbid = (
        "torch.cdist",
        "torch.functional.cdist",
        "aten._cdist_forward",
        "aten._euclidean_dist",
    )

    def probes(self, gen):
        # square (N = M) with b's norms unequal about any centre: ||b||² as a column runs
        hand = (torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]]),
                torch.tensor([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]]))  # fmt: skip
        yield Probe("a = [[0, 0], [3, 4], [1, 1]], b = [[0, 0], [1, 0], [3, 0]]", args=hand)
        yield Probe("random a (5, 3), b (4, 3)", args=(randn(5, 3, generator=gen),
                                                      randn(4, 3, generator=gen)))  # fmt: skip
        yield Probe(
            f"{BATCH} a (2, 3, 4), b (2, 6, 4)",
            args=(randn(2, 3, 4, generator=gen), randn(2, 6, 4, generator=gen)),
        )
        same = randn(6, 5, generator=gen)
        yield Probe("a and b the same 6 points (the diagonal is 0)", args=(same, same.clone()))
        yield Probe(
            "float64, a (2, 4, 3), b (2, 5, 3)",
            args=tuple(randn(2, n, 3, dtype=torch.float64, generator=gen) for n in (4, 5)),
        )
        far = [1000 + randn(n, 8, generator=gen) for n in (6, 7)]
        yield Probe("points far from the origin: 1000 + random, a (6, 8), b (7, 8)", args=far)

    def explain_error(self, probe, error):
        a, b = probe.args
        found = ambiguous_bool(error)
        if found is None and probe.name.startswith(BATCH):  # the first case with batch dims
            found = _batch_error(a, b, error)  # after the 2-D cases, which passed
        return found

    def judge(self, probe, out):
        a, b = probe.args
        *batch, N, _ = a.shape
        M = b.shape[-2]
        got = expect_tensor(out)
        if N != M and tuple(got.shape) == (*batch, M, N):
            raise Fail(
                f"the output has shape {fmt_shape(got.shape)}, expected "
                f"{fmt_shape((*batch, N, M))}: row i holds a's point i, column j b's point j.",
                "transposed",
            )
        expect_like(got, (*batch, N, M), a.dtype)
        expect_finite(got)
        ref = sq_dists64(a, b)
        a64, b64 = a.double(), b.double()
        mistakes = variants(self.mistakes, sq_dists64, (a, b))
        means = {"a": a64.mean(-2, keepdim=True), "b": b64.mean(-2, keepdim=True), None: 0.0}
        mistakes += [
            (lambda sa=sa, sb=sb: sq_dists64(a64 - means[sa], b64 - means[sb]),
             NOT_COMMON_SHIFT.format(seen=seen), "not_common_shift")
            for sa, sb, seen in SHIFTS
        ]  # fmt: skip
        expect_close(got, ref, mistakes=mistakes, explain=lambda g: _cancelled(g, ref, a, b))
        if (got < 0).any():
            raise Fail(
                f"some squared distances are negative (the smallest is "
                f"{got.min().item():.2g}): rounding in ||a||² + ||b||² - 2 a·b can go below 0 "
                "where two points coincide. A squared distance never is: clamp at 0 "
                "(.clamp_min(0)).",
                "negative",
            )


#: errors that say something else than the batch dims: a built-in switched off
NOT_BATCH_ERRORS = ("switched off during this check", "asks you to write yourself")


def _batch_error(a: torch.Tensor, b: torch.Tensor, error: str) -> Fail | None:
    """An error on a case with leading batch dims, after the 2-D cases passed."""
    if same_error(error, lambda: a @ b.transpose(0, 1)):
        return Fail(
            "b.transpose(0, 1) swaps the first two dims: for 2-D input (the cases that "
            f"passed) those are the last two, but with a leading batch dim b {fmt_shape(b.shape)} "
            f"becomes {fmt_shape(b.transpose(0, 1).shape)}. Transpose the last two dims, "
            "b.transpose(-2, -1) (or b.mT), whatever the leading dims.\n   " + error,
            "batch_transpose",
        )
    found = transpose_all(error, "b", lambda: a @ b.T)
    if found is not None or any(w in error for w in (*DEVICE_ERRORS, *NOT_BATCH_ERRORS)):
        return found
    return Fail(
        "your code passed the 2-D cases and raised on this one, with a leading batch dim (a is "
        "(..., N, d), b (..., M, d)): count the dims from the end (b.transpose(-2, -1) or b.mT, "
        "sum(-1), [..., :, None]) and use @, which broadcasts over the leading dims (torch.mm "
        "and .T do not).\n   " + error,
        "batch_dims",
    )
