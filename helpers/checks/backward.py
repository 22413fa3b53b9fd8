"""The backward half of the contract: one case per exercise compares the gradients of the inputs
and of every parameter with the reference's (run/gradients.py computes them), and names the
tensor whose gradient differs. A forward pass can be right while its gradients are wrong: a
``.detach()``, a ``torch.no_grad()``, a statistic taken with ``.item()``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import torch

from .edits import source
from .framework import Exercise, Fail, Probe, close

#: the seed of the gradient case's small moves of its inputs
JITTER_SEED = 11
#: a gradient error below this fraction of the largest gradient is roundoff
SMALL = 1e-4
#: the forward runners a gradient case can be made from ("block": a block in eval mode, every
#: input of its forward differentiated, a decoder's `memory` too); those of LOOPS are differentiated
#: through their own loop (run/gradients.py)
FROM = ("call", "module", "parts", "block")
LOOPS = ("kv_decode",)


def gradient_probe(ex: Exercise, probes: Sequence[Probe]) -> Probe | None:
    """The exercise's first forward case with a floating input or a module, run for its
    gradients (on the CPU: autograd needs no second device); None where there is none."""
    if ex.kind == "trained" or not source.has_reference(ex):
        return None  # nothing to compare the gradients with
    for probe in probes:
        floating = any(isinstance(a, torch.Tensor) and a.is_floating_point() for a in probe.args)
        if probe.runner in LOOPS and floating:
            return dataclasses.replace(
                probe, name=f"gradients, {probe.name}", runner=f"grad:{probe.runner}",
                cpu_only=True,
            )  # fmt: skip
        if probe.runner in FROM and (floating or probe.init is not None):
            init = None if probe.runner == "call" else (probe.init or {})
            gen = torch.Generator().manual_seed(JITTER_SEED)
            return dataclasses.replace(
                probe,
                name=f"gradients, {probe.name}",
                args=tuple(_jitter(a, gen) for a in probe.args),
                runner="grad",
                init=init,
                cpu_only=True,
            )
    return None


def _jitter(x, gen: torch.Generator):
    """A floating input moved by a thousandth of its scale: no exact ties (relu at 0, two equal
    maxima), where a gradient may be taken either way."""
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()):
        return x
    noise = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(x.dtype)
    return x + 1e-3 * x.abs().max().clamp(min=1) * noise


def judge(ex: Exercise, probe: Probe, value) -> Fail | None:
    """None when every gradient matches the reference's (or there is no reference to run)."""
    ref = source.reference_outcome(ex, probe)
    if ref is None or ref.error is not None or not isinstance(ref.value, dict):
        return None
    if not isinstance(value, dict) or not value:
        return None  # the forward cases report what the learner's object is
    every = [g for kind in ("inputs", "params") for g in (ref.value.get(kind) or {}).values()]
    # roundoff is relative to the gradients' scale: a gradient that is 0 in exact arithmetic
    # (a key projection's bias) is some 1e-7 of it in float32, in any order of operations
    scale = max((g.abs().max().item() for g in every if g is not None and g.numel()), default=1)
    for kind, what in (("inputs", "input"), ("params", "parameter")):
        mine = value.get(kind) or {}
        for name, expected in (ref.value.get(kind) or {}).items():
            if expected is None or name not in mine:
                continue
            got = mine[name]
            if got is None:
                if expected.numel() and expected.abs().max().item() > SMALL * scale:
                    return _fail(what, name, "gets no gradient, where the reference's is not 0")
                continue
            if not close(got.double(), expected.double(), SMALL * scale, 1e-3):
                err = (got.double() - expected.double()).abs().max().item()
                how = f"gets another gradient than the reference's (largest error {err:.3g})"
                return _fail(what, name, how)
    return None


def _fail(what: str, name: str, how: str) -> Fail:
    return Fail(
        f"the outputs are right, but the {what} `{name}` {how}: a step "
        "is cut out of autograd (.detach(), .data, torch.no_grad(), .item(), a tensor rebuilt "
        "with torch.tensor(...)), or the backward pass differs from what the forward shows.",
        "wrong_gradient",
    )
