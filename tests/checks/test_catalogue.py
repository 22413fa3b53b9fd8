"""Tests made from the catalogue (helpers/checks/exercises/NN/catalogue.py): every catalogued
wrong program, run through ``check()`` as a learner's code, fails with its own code, and the
reference it is an edit of passes. A mistake is written once, in the catalogue; its test comes
from there."""

from __future__ import annotations

import pytest
import torch
from torch.utils._pytree import tree_leaves, tree_map

from helpers.checks import EXERCISES
from helpers.checks.mistakes import program


def as_learner(fn):
    """``fn`` (a float64 reference, or a wrong program made of one) as a learner writes it: its
    outputs in the inputs' floating dtype and on their device (``device=`` where it is given),
    computed on the CPU (on "meta" inputs as they are: they have shapes only)."""

    def candidate(*args, **kwargs):
        tensors = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        device = torch.device(kwargs.get("device") or (tensors[0].device if tensors else "cpu"))
        dtype = next((t.dtype for t in tensors if t.is_floating_point()), torch.float32)
        kwargs = {k: v for k, v in kwargs.items() if k != "device"}
        if not any(t.device.type == "meta" for t in tensors):
            args, kwargs = tree_map(_cpu, (args, kwargs))
        return tree_map(lambda t: _back(t, device, dtype), fn(*args, **kwargs))

    return candidate


def learner_of(ex, fn):
    """``fn`` as the learner's function: the exercise's own ``learner`` form, else as_learner."""
    return ex.learner(fn) if ex.learner else as_learner(fn)


def _cpu(x):
    return x.cpu() if isinstance(x, torch.Tensor) else x


def _back(x, device: torch.device, dtype: torch.dtype):
    if not isinstance(x, torch.Tensor):
        return x
    return x.to(device, dtype) if x.is_floating_point() else x.to(device)


CASES = [
    pytest.param(exercise, code, spec, id=f"{exercise}/{code}#{n}")
    for exercise, ex in EXERCISES.items()
    for code, mistake in ex.mistakes.items()
    for n, spec in enumerate(mistake.wrong + mistake.example)
]


@pytest.mark.parametrize("exercise, code, spec", CASES)
def test_a_catalogued_mistake_is_named_by_its_code(run_check, exercise, code, spec):
    """Named by its code; or, where on the case it fails several catalogued slips give the same
    output, listed among them (framework.slips: a case that several known mistakes explain
    alike names none of them; the edit search may then name the edit), and no other
    catalogued mistake named."""
    ex = EXERCISES[exercise]
    r = run_check(exercise, learner_of(ex, program(ex.reference64, spec)))
    head = ex.mistakes[code].message.split(": ")[0]
    other = r.mistake.split("/")[-1] in set(ex.mistakes) - {code}
    listed = head in r.messages[0] and not other
    assert not r.passed and (r.mistake == f"{exercise}/{code}" or listed), (r.mistake, r.messages)


@pytest.mark.parametrize("exercise", [i for i, ex in EXERCISES.items() if ex.reference64])
def test_the_reference_the_catalogue_edits_passes(run_check, exercise):
    ex = EXERCISES[exercise]
    r = run_check(exercise, learner_of(ex, ex.reference64))
    assert r.passed, r.messages


def test_an_edit_names_a_place_the_reference_holds_once():
    ex = EXERCISES["02.scaled_dot_product_attention"]
    with pytest.raises(ValueError, match="needs its OLD once"):
        program(ex.reference64, "q -> k")  # q is everywhere
