"""The search: the edit of the course's reference that reproduces a learner's wrong answer on
every case of the check (Singh, Gulwani and Solar-Lezama, PLDI 2013).

    explain(ex, pairs) -> (message, code) | None: the edits that do what the learner's code does
                          on every probe, named; None when none does (the check then says what
                          it knows)

The mutants (one per edit of operators.py) are built once per exercise and process, and run in
the judge's process on the CPU, under a time limit each and a budget for the whole search.
"""

from __future__ import annotations

import ast
import contextlib
import math
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import torch
from torch.utils._pytree import tree_leaves

from ..run.calling import Probe
from ..run.parts import PARTS_KEY
from ..run.runner import Outcome, Task
from .operators import Edit, edits, mutant_source, strip_annotations
from .source import build, fingerprint, reference, reference_name, reference_source, run_on

if TYPE_CHECKING:  # the framework is a floor above: an exercise comes in, none is made here
    from ..framework import Exercise

#: the whole search stops after this many seconds (check() stays under 1 s)
BUDGET_S = 1.0
_MUTANTS: dict[str, list[tuple[Edit, Any]]] = {}


def mutants(ex: Exercise) -> tuple[Any, list[tuple[Edit, Any]]]:
    """(the reference object, [(edit, the mutant object)]) for an exercise, built once."""
    if ex.id not in _MUTANTS:
        _MUTANTS[ex.id] = _mutants(ex) if reference(ex) is not None else []
    return reference(ex), _MUTANTS[ex.id]


def _mutants(ex: Exercise) -> list[tuple[Edit, Any]]:
    source, ns = reference_source(ex)
    name = reference_name(ex)
    tree = strip_annotations(ast.parse(source))
    built = []
    for edit in edits(tree):
        with contextlib.suppress(Exception):  # an edit that does not even define the object
            built.append((edit, build(mutant_source(tree, edit), ns, name, edit.tag)))
    return built


# --------------------------------------------------------------------------- the search


def distance(a: Any, b: Any) -> float:
    """How far two outcomes' values are: the largest error over their tensors, relative to each
    tensor's scale (0 when equal; inf when their structure, shapes, NaNs or exact parts differ)."""
    la, lb = tree_leaves(a), tree_leaves(b)
    if len(la) != len(lb):
        return math.inf
    worst = 0.0
    for x, y in zip(la, lb):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape:
                return math.inf
            if not (x.is_floating_point() and y.is_floating_point()):
                if not torch.equal(x, y):
                    return math.inf
                continue
            x, y = x.double(), y.double()
            if not torch.equal(torch.isnan(x), torch.isnan(y)):
                return math.inf
            x, y = x.nan_to_num(), y.nan_to_num()
            if not torch.equal(torch.isinf(x), torch.isinf(y)):
                return math.inf
            x, y = x.nan_to_num(posinf=0, neginf=0), y.nan_to_num(posinf=0, neginf=0)
            if x.numel():
                scale = max(y.abs().max().item(), x.abs().max().item(), 1e-12)
                worst = max(worst, (x - y).abs().max().item() / scale)
        elif isinstance(x, float) and isinstance(y, float):
            if not (x == y or math.isclose(x, y, rel_tol=1e-9)):
                worst = max(worst, abs(x - y) / max(abs(x), abs(y), 1e-12))
        elif type(x) is not type(y) or x != y:
            return math.inf
    return worst


#: an edit reproduces the learner's output when it lies this close, relative to the output's scale,
#: and ten times closer than the reference
SAME, CLOSER = 1e-4, 0.1


def _own(value: Any) -> Any:
    """The learner's module run with the course's parts, where its own parts changed the output
    (run/parts.py): the edit is looked for in the module itself."""
    if isinstance(value, dict) and value.get(PARTS_KEY):
        return value["swaps"]["*"]
    return value


def reproducing(ex: Exercise, pairs: Iterable[tuple[Probe, Outcome]]) -> list[Edit]:
    """The edits of ``ex``'s reference whose outputs equal the learner's on every probe of
    ``pairs`` (the learner's outcomes, the failing one first; read lazily, as long as an edit
    still reproduces them all); [] when the search does not apply, or runs past
    :data:`BUDGET_S`."""
    if threading.current_thread() is not threading.main_thread():
        return []  # no alarm to stop a mutant that loops forever
    course, alive = mutants(ex)
    if course is None:
        return []
    # the course's own code: no built-in switched off (a dispatch mode costs 5x)
    task = Task(ex.id, (), ex.parts, ex.function_parts, ex.traced)
    deadline = time.perf_counter() + BUDGET_S
    valued = False  # an edit that only raises as the learner's code does is not enough
    changed: set[str] = set()
    with torch.random.fork_rng(devices=[]):
        for probe, mine in pairs:
            if mine.missing or (mine.error is None and mine.value is None):
                return []
            key, value = fingerprint(probe), _own(mine.value)
            ref = run_on(task, probe, course, "reference", key)
            off = distance(ref.value, value)
            kept = []
            for edit, obj in alive:
                if time.perf_counter() > deadline:
                    return []  # not searched to the end: nothing is claimed
                got = run_on(task, probe, obj, edit.tag, key)
                if _alike(got, mine, value, off):
                    kept.append((edit, obj))
                    if not _alike(got, ref, ref.value, math.inf):  # it changes the reference
                        changed.add(edit.tag)
            alive, valued = kept, valued or mine.error is None
            if not alive:
                return []
    # an edit that changes nothing on these cases (transpose(-1, -2)) names no mistake
    return [edit for edit, _ in alive if edit.tag in changed] if valued else []


def _alike(got: Outcome, mine: Outcome, value: Any, off: float) -> bool:
    """The mutant does what the learner's code does on one probe: raises the same exception
    with the same message, or gives outputs within :data:`SAME` and far closer than the
    reference's (``off``: the reference's distance to the learner's ``value``)."""
    if mine.error is not None:
        return got.error is not None and got.error.splitlines()[0] == mine.error.splitlines()[0]
    return got.error is None and distance(got.value, value) <= min(SAME, CLOSER * off)


def explain(ex: Exercise, pairs: Iterable[tuple[Probe, Outcome]]) -> tuple[str, str] | None:
    """(message, mistake code) naming the edit(s) of the reference that reproduce what the
    learner's code does on every probe (its outputs, or the error it raises), or None."""
    found = reproducing(ex, pairs)
    if not found:
        return None
    words = list(dict.fromkeys(e.words.strip() for e in found))
    if len(words) == 1:
        text = f"your code does what the reference does with one change: {words[0]}."
    else:
        listed = "; or ".join(words[:3]) + ("; ..." if len(words) > 3 else "")
        text = f"your code does what the reference does with one of these changes: {listed}."
    return text, found[0].code
