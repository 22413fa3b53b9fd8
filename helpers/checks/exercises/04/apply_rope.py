"""Notebook 04, section 6: rotary position embedding (RoPE), ``apply_rope(x, base=10000.0)``.

The layout is the interleaved one of Su et al. (2021) and of the notebook: features 2i and
2i+1 form a pair, rotated by the angle pos * base^(-2i/d) at position pos = 0, 1, ..., T - 1
(dim -2 of x). :func:`rope64` is the float64 reference, with switches for the known mistakes."""

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
    named,
    randn,
    register,
)


def rope64(
    x: torch.Tensor,
    base: float = 10000.0,
    *,
    layout: str = "interleave",
    exponent: str = "2i/d",
    sign: float = -1.0,
    rotation: str = "right",
    start: int = 0,
    angles_dtype: torch.dtype = torch.float64,
    read_swapped: bool = False,
    write_swapped: bool = False,
) -> torch.Tensor:
    """x (..., T, d) with each pair rotated by pos * base^(-2i/d), in float64.

    Wrong variants: ``layout`` "halves" (pairs (i, i + d/2), GPT-NeoX and Llama's Hugging Face
    code), "halves_out" (the right pairs, written back as [rotated evens, rotated odds]);
    ``exponent`` "i/d" (the factor 2 forgotten); ``sign=+1`` (positions multiplied
    by base^(2i/d)); ``rotation`` "backwards" (by -angle), "sin_cos_swapped"; ``start=1``
    (positions from 1); ``angles_dtype=float32`` (the angles rounded to float32);
    ``read_swapped`` (each pair read as (x[2i+1], x[2i])), ``write_swapped`` (each rotated pair
    written back second feature first).
    """
    x = x.double()
    T, d = x.shape[-2], x.shape[-1]
    i = torch.arange(d // 2, dtype=torch.float64)
    power = {"2i/d": 2 * i / d, "i/d": i / d}[exponent]
    pos = torch.arange(start, start + T, dtype=torch.float64)[:, None]
    angles = pos * torch.pow(torch.tensor(base, dtype=torch.float64), sign * power)
    angles = angles.to(angles_dtype).double()  # (T, d // 2)
    cos, sin = angles.cos(), angles.sin()
    if layout == "halves":
        a, b = x[..., : d // 2], x[..., d // 2 :]
    else:
        a, b = x[..., 0::2], x[..., 1::2]
    if read_swapped:
        a, b = b, a
    if rotation == "backwards":
        sin = -sin
    if rotation == "sin_cos_swapped":
        cos, sin = sin, cos
    ra, rb = a * cos - b * sin, a * sin + b * cos
    if write_swapped:
        ra, rb = rb, ra
    if layout in ("halves", "halves_out"):
        return torch.cat([ra, rb], dim=-1)
    return torch.stack([ra, rb], dim=-1).flatten(-2)


MISTAKES = {
    "halves_layout": "you rotate the pairs (i, i + d/2), the layout of GPT-NeoX (and of "
    "Llama's Hugging Face code, rotate_half): this exercise uses the interleaved pairs "
    "(2i, 2i+1), x[..., 0::2] with x[..., 1::2], as the notebook's formula and Su et al. do.",
    "not_interleaved_back": "the pairs are rotated right, but written back as [all rotated "
    "even features, all rotated odd features], as torch.cat([even, odd], dim=-1) gives, and "
    "torch.stack([even, odd], dim=-2).flatten(-2){also}: put each pair back in place, "
    "features 2i and 2i+1, e.g. torch.stack([even, odd], dim=-1).flatten(-2).",
    "pairs_written_swapped": "each rotated pair is written back in the wrong order, the second "
    "feature first: feature 2i gets a sin t + b cos t and feature 2i+1 gets a cos t - b sin t "
    "(a = x[..., 0::2], b = x[..., 1::2]). Put a cos t - b sin t back at 2i and a sin t + b cos t "
    "at 2i+1: torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2).",
    "pairs_read_swapped": "each pair is read in the wrong order, (a, b) = (x[2i+1], x[2i]) "
    "(the same output as writing the rotated pair back swapped and turning it the wrong way): "
    "a is the even feature, x[..., 0::2], and b the odd one, x[..., 1::2].",
    "exponent_without_2": "the frequencies are wrong: base^(-i/d) misses the factor 2; pair i "
    "turns by base^(-2i/d) per position (2i = torch.arange(0, d, 2)).",
    "exponent_sign": "the exponent has the wrong sign: the angle is pos * base^(-2i/d) (the "
    "frequencies fall with i), not pos * base^(+2i/d).",
    "rotation_backwards": "each pair turns the wrong way (by -angle): the rotation of (a, b) "
    "by the angle t is (a cos t - b sin t, a sin t + b cos t).",
    "sin_cos_swapped": "sin and cos are swapped: the rotation of (a, b) by the angle t is "
    "(a cos t - b sin t, a sin t + b cos t); at position 0 (t = 0) x must come back unchanged.",
    "positions_from_1": "the positions start at 1: the first position along dim -2 is 0 "
    "(angle 0, x unchanged), torch.arange(T) with T = x.size(-2).",
    "angles_in_float32": "the angles are computed in float32 although x is float64: make the "
    "positions and frequencies in x's dtype (torch.arange(..., dtype=x.dtype, "
    "device=x.device)), so a float64 input gets float64 accuracy.",
}


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

        def v(**kw):
            return lambda: rope64(x, base, **kw)

        # on a 2-D x a stack along dim 1 is the stack along dim -2: said, not told apart
        also = " (or dim=1, on this 2-D x)" if x.dim() == 2 else ""
        messages = MISTAKES | {
            "not_interleaved_back": MISTAKES["not_interleaved_back"].format(also=also)
        }
        mistakes = named(
            messages,
            halves_layout=v(layout="halves"),
            not_interleaved_back=v(layout="halves_out"),
            exponent_without_2=v(exponent="i/d"),
            exponent_sign=v(sign=+1.0),
            rotation_backwards=v(rotation="backwards"),
            sin_cos_swapped=v(rotation="sin_cos_swapped"),
            positions_from_1=v(start=1),
            pairs_written_swapped=v(write_swapped=True),
            pairs_read_swapped=v(read_swapped=True),
        )
        if base != 10000.0:
            mistakes.append(
                (
                    lambda: rope64(x, 10000.0),
                    f"the `base` argument is ignored: this case passes base={base:g}, and "
                    "the frequencies are base^(-2i/d).",
                    "base_ignored",
                )
            )
        if x.dtype == torch.float64:
            mistakes += named(MISTAKES, angles_in_float32=v(angles_dtype=torch.float32))
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
