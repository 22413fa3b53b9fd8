"""Notebook 04, section 6: rotary position embedding (RoPE), ``apply_rope(x, base=10000.0)``.

The layout is the interleaved one of Su et al. (2021) and of the notebook: features 2i and
2i+1 form a pair, rotated by the angle pos * base^(-2i/d) at position pos = 0, 1, ..., T - 1
(dim -2 of x). :func:`rope64` is the float64 reference; exercises/04/catalogue.py the known
mistakes, edits of it."""

from __future__ import annotations

import math

import torch

from ...framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    randn,
    register,
)
from ...mistakes import variants


def rope64(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """x (..., T, d) with each pair rotated by pos * base^(-2i/d), in float64. The catalogue's
    wrong programs are edits of it (exercises/04/catalogue.py)."""
    x = x.double()
    T, d = x.shape[-2], x.shape[-1]
    i = torch.arange(d // 2, dtype=torch.float64)
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    angles = pos * torch.pow(torch.tensor(base, dtype=torch.float64), -2 * i / d)  # (T, d // 2)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    ra, rb = a * cos - b * sin, a * sin + b * cos
    return torch.stack([ra, rb], dim=-1).flatten(-2)


#: (name, shape, base, dtype)
CASES = [
    ("x (5, 8), one sequence, base 10000", (5, 8), 10000.0, torch.float32),
    ("x (2, 3, 7, 16) = (B, H, T, d_head), base 10000", (2, 3, 7, 16), 10000.0, torch.float32),
    ("x (2, 6, 10), base=100.0", (2, 6, 10), 100.0, torch.float32),
    ("x (3, 1, 4), T = 1: only position 0", (3, 1, 4), 10000.0, torch.float32),
    ("x (4, 2), d = 2: one pair", (4, 2), 10000.0, torch.float32),
    ("x (2, 9, 6), float64, base=500.0", (2, 9, 6), 500.0, torch.float64),
    ("x (1, 64, 32), T = 64, base 10000", (1, 64, 32), 10000.0, torch.float32),
]


def pair_faults(got: torch.Tensor, x: torch.Tensor, base: float) -> Fail | None:
    """The property of every RoPE that ``got`` breaks: each pair (2i, 2i+1) keeps its length,
    position 0 is unchanged, and pair i turns by base^(-2i/d) per position, counterclockwise."""
    g, x = got.double(), x.double()
    T, d = x.shape[-2], x.shape[-1]
    ga, gb, xa, xb = g[..., 0::2], g[..., 1::2], x[..., 0::2], x[..., 1::2]
    if not torch.allclose(ga**2 + gb**2, xa**2 + xb**2, atol=1e-3, rtol=1e-3):
        return Fail(
            "the pairs (2i, 2i+1) do not keep their length, so this is not a rotation of them: "
            "(a, b) -> (a cos t - b sin t, a sin t + b cos t) with t = pos * base^(-2i/d).",
            "not_a_rotation",
        )
    if not torch.allclose(g[..., 0, :], x[..., 0, :], atol=1e-4, rtol=1e-4):
        swapped = x[..., 0, :].unflatten(-1, (d // 2, 2)).flip(-1).flatten(-2)
        if torch.allclose(g[..., 0, :], swapped, atol=1e-4, rtol=1e-4):
            return Fail(
                "position 0 (the first row along dim -2, angle 0) comes back as x with the two "
                "features of each pair (2i, 2i+1) swapped: a rotation by 0 leaves every pair as "
                "it is. A pair is read or written back in the wrong order: a = x[..., 0::2], "
                "b = x[..., 1::2], and the rotated a goes back to feature 2i, the rotated b to "
                "2i+1 (torch.stack([a_rot, b_rot], dim=-1).flatten(-2)).",
                "pair_features_swapped",
            )
        return Fail(
            "position 0 (the first row along dim -2) is changed: its angle is 0 * w_i = 0, "
            "so it comes back as it was; the positions are torch.arange(T), T = x.size(-2).",
            "position_0_changed",
        )
    if T < 2:
        return None
    # the angle each pair turned by at position 1: atan2(cross, dot) of (xa, xb) -> (ga, gb)
    a0, b0, a1, b1 = xa[..., 1, :], xb[..., 1, :], ga[..., 1, :], gb[..., 1, :]
    turned = torch.atan2(a0 * b1 - b0 * a1, a0 * a1 + b0 * b1).reshape(-1, d // 2)[0]
    want = base ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    diff = torch.remainder(turned - want + math.pi, 2 * math.pi) - math.pi
    bad = (diff.abs() > 1e-3).nonzero()
    if len(bad):
        i = int(bad[0])
        return Fail(
            f"the frequencies are wrong: at position 1, pair {i} (features {2 * i} and "
            f"{2 * i + 1}) turned by {turned[i]:.4g} radians, expected base^(-{2 * i}/{d}) = "
            f"{want[i]:.4g} (base = {base:g}).",
            "wrong_frequency",
        )
    return None


@register
class ApplyRopeCheck(Exercise):
    id = "04.apply_rope"
    title = "rotary position embedding"
    points = 2.0
    reference64 = staticmethod(rope64)
    errors = tuple(
        (
            (words,),
            "two tensors of the rotation do not broadcast (the error below): the angles are (T, "
            "d // 2), positions along dim -2 (T = x.size(-2)) and the d // 2 frequencies along "
            "the last dim, and they multiply the pair halves x[..., 0::2] and x[..., 1::2], "
            "(..., T, d // 2) each, whatever the leading dims. Check the shapes of both.",
            "angles_shape",
        )
        for words in ("must match the size of tensor", "shape mismatch")
    )

    def probes(self, gen):
        for name, shape, base, dtype in CASES:
            kwargs = {} if base == 10000.0 else {"base": base}
            yield Probe(name, (randn(*shape, generator=gen, dtype=dtype),), kwargs)

    def judge(self, probe, out):
        (x,) = probe.args
        base = probe.kwargs.get("base", 10000.0)
        got = expect_tensor(out)
        expect_like(got, x.shape, x.dtype)
        expect_finite(got)
        # on a 2-D x a stack along dim 1 is the stack along dim -2: said, not told apart
        also = " (or dim=1, on this 2-D x)" if x.dim() == 2 else ""
        skip = {"base_ignored": base == 10000.0, "angles_in_float32": x.dtype != torch.float64}
        codes = [c for c in self.mistakes if not skip.get(c)]
        fields = {"also": also, "base": base}
        mistakes = variants(self.mistakes, rope64, (x, base), fields=fields, codes=codes)
        # float32 angles pos * w_i carry a relative error ~1e-7: ~1e-7 * T * |x| in the output
        atol = (
            None if x.dtype == torch.float64 else 1e-5 + 5e-7 * x.shape[-2] * float(x.abs().max())
        )
        expect_close(
            got,
            rope64(x, base),
            atol=atol,
            mistakes=mistakes,
            explain=lambda got: pair_faults(got, x, base),
        )
