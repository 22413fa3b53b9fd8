"""Exercise registry and ``check()``, the inline auto-grader.

    from helpers import check
    result = check("02.scaled_dot_product_attention", scaled_dot_product_attention)

Two sides, along the line the grader draws between the learner's kernel and its own process:

- ``run/``, the kernel side: calls a learner's object on a probe and returns plain data (the
  runners, ``run.runner.RUNNERS``). A grading kernel gets this package whole, and nothing else
  of ``checks/``; it imports nothing of the judge side (tests/test_import_rules.py).
- the judge side, here: the exercises (their probes, judges and float64 references), the
  diagnosis of mistakes, the messages. One file per exercise, its path following the id:
  ``exercises/NN/<name>.py`` holds the check of ``NN.name``, a class decorated with
  ``framework.register``; ``exercises/NN/questions.py`` the notebook's checked questions, as
  data; ``exercises/NN/reference.py`` float64 references the notebook's checks share.
  Importing this package imports them all and fills :data:`EXERCISES`. Three floors above
  ``run/``, each importing only the floors below:

  1. ``framework`` (Exercise, register, Fail, inputs, expect_*), ``references`` (float64
     formulas several notebooks share), ``weights`` (the contract's parameter names, random
     states, PyTorch's layers loaded with them), ``edits/operators`` and ``edits/source`` (the
     reference as an error model: the edits of the course's code; the code, built and run);
  2. tools: ``edits/search`` (the edit of the course's code that reproduces a wrong answer),
     ``properties`` (diagnosis by property; listed in ``framework.DIAGNOSES`` here),
     ``backward`` (the gradients compared with the reference's), ``state`` (the numbers a
     module keeps, its state_dict keys),
     ``parts`` (the faulty part, the faulty step), ``probes``, ``questions`` (checked
     conceptual questions: a choice or a number, and why),
     ``modules``, ``trained``, each notebook's float64 reference (``exercises/NN/reference.py``)
     and what several of a notebook's checks share (``exercises/04/tables.py``);
  3. the exercise modules and this package; an exercise module never imports another.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from . import backward, contract, errors, framework, properties, state
from .edits import localise, repairs, search, source, tensors
from .framework import DIAGNOSES, DROPOUT_IN_EVAL, REGISTRY, CheckResult, Exercise, Fail, Probe
from .mistakes import entries
from .questions import register_questions
from .run import fake_gpu
from .run.calling import STATE_MISMATCH
from .run.runner import DEVICE_ERRORS, Outcome, _run_on, run_probe

DIAGNOSES[:] = [properties.diagnose]  # what expect_close asks before its generic message

#: the exercises' folder: exercises/NN/<name>.py is the check of NN.name, exercises/NN/
#: catalogue.py the notebook's known mistakes, exercises/NN/questions.py its questions
EXERCISES_DIR = Path(__file__).parent / "exercises"
_CATALOGUE: dict[str, dict] = {}
for _path in sorted(EXERCISES_DIR.glob("*/*.py")):
    if _path.stem != "__init__":
        _module = importlib.import_module(f"{__name__}.exercises.{_path.parent.name}.{_path.stem}")
        register_questions(getattr(_module, "QUESTIONS", {}))
        _CATALOGUE.update(getattr(_module, "CATALOGUE", {}))
for _id, _table in _CATALOGUE.items():
    REGISTRY[_id].mistakes = entries(_table)


def _course_order(item: tuple[str, Exercise]) -> tuple[str, int]:
    """A notebook's exercises in the order its cells check them (exercises/NN/__init__.py)."""
    notebook, name = item[0].split(".", 1)
    order = importlib.import_module(f"{__name__}.exercises.{notebook}").ORDER
    return notebook, order.index(name) if name in order else len(order)


_ordered = sorted(REGISTRY.items(), key=_course_order)  # the grader's rows follow REGISTRY
REGISTRY.clear()
REGISTRY.update(_ordered)

#: every exercise id -> its :class:`Exercise` (``.notebook``, ``.title``, ``.points``)
EXERCISES: dict[str, Exercise] = dict(sorted(REGISTRY.items()))

DEFAULT_SEED = 1234


def _set_up_fakegpu() -> None:
    """The stand-in GPU's one-time set-up, with the import rather than in the first check():
    torch imports torch.distributed.tensor (0.7 s) when the first tensor moves to a Python
    backend. Only where the checks will use it (the series' device is the CPU)."""
    from ..device import get_device

    if get_device().type == "cpu" and fake_gpu.available():
        torch.empty(0).to(fake_gpu.fakegpu())


_set_up_fakegpu()


def path_of(exercise_id: str) -> Path:
    """The file that holds an exercise's check: exercises/NN/<name>.py, or the notebook's
    questions.py for a checked question."""
    notebook, name = exercise_id.split(".", 1)
    own = EXERCISES_DIR / notebook / f"{name}.py"
    return own if own.exists() else EXERCISES_DIR / notebook / "questions.py"


def module_of(exercise_id: str) -> ModuleType:
    """The module of an exercise's check (its float64 reference, its tables: for the tests)."""
    return sys.modules[type(EXERCISES[exercise_id]).__module__]


def unknown_id_message(exercise_id: Any) -> str:
    known = ", ".join(EXERCISES)
    return f"unknown exercise id {exercise_id!r}. Known ids: {known}."


#: a tensor made on the CPU met the inputs on the check's device (a GPU, or fakegpu standing in)
OTHER_DEVICE = (
    "your code mixes tensors of two devices: the check runs it on a second device, as a GPU "
    "would, and a tensor your code made is on the CPU. Make new tensors where the inputs are "
    "(torch.zeros(..., device=x.device), torch.ones_like(x)), and keep a module's tensors in "
    "parameters or buffers (self.register_buffer), which .to(device) moves."
)


def error_fail(error: str) -> Fail:
    """The :class:`Fail` for an error no exercise explained (the check's own steps coded)."""
    if "switched off during this check" in error or "asks you to write yourself" in error:
        return Fail(error, "forbidden_builtin")
    if any(words in error for words in DEVICE_ERRORS):
        return Fail(OTHER_DEVICE + "\n   " + error, "off_device")
    if error.startswith(STATE_MISMATCH):
        return Fail(error, "state_mismatch")
    return errors.known_error(error) or Fail(error)


def off_device_fail(probe: Probe) -> Fail:
    """The :class:`Fail` for a result that is not where the probe's contract puts it."""
    if probe.runner == "device":  # f(..., device=device)
        return Fail(
            "asked for device=<the check's device>, the result is on the CPU: the `device` "
            "argument is ignored. Create the tensors on it (torch.ones(..., device=device) or "
            "torch.arange(T, device=device)), so the mask lands where the scores are.",
            "ignores_device",
        )
    if probe.cpu_only and not any(isinstance(a, torch.Tensor) for a in probe.args):
        return Fail(
            "the result is not on the CPU: with no tensor input, build it on the CPU (leave "
            "out device=); a module that keeps it in a buffer moves it with .to(device).",
            "off_device",
        )
    return Fail(
        "an output tensor is on another device than the inputs: create new tensors with "
        "device=x.device (or use torch.*_like).",
        "off_device",
    )


def probes(ex: Exercise, gen: torch.Generator) -> list[Probe]:
    """The exercise's cases, with those of its contract beyond the output (contract.py): the
    modes first, the gradients of its first forward case last."""
    return all_probes(ex, ex.probes(gen))


def all_probes(ex: Exercise, cases: Iterable[Probe]) -> list[Probe]:
    """The mode probes (contract.py), the exercise's cases, and last the gradients of its first
    forward case (backward.py): the one list the inline check and the grader draw alike."""
    cases = list(cases)
    grad = backward.gradient_probe(ex, cases)
    return contract.mode_probes(ex, cases) + cases + ([grad] if grad else [])


def judge_failure(ex: Exercise, probe: Probe, outcome: Outcome) -> Fail | None:
    """None when the probe passed, else the :class:`Fail` (its ``code`` names the mistake)."""
    if outcome.error is not None:
        return ex.explain_error(probe, outcome.error) or error_fail(outcome.error)
    value = outcome.value
    if outcome.input_changed:
        return Fail(
            "your code changed an input tensor in place (x[...] = ..., x /= ..., x += ..., "
            "x.clamp_(), ...): the caller's tensor must stay as it was. Compute a new tensor "
            "(torch.where(...), x * ..., x = x + ...), or work on x.clone().",
            "changes_input",
        )
    if outcome.random_in_eval:
        return Fail(*DROPOUT_IN_EVAL)
    if probe.runner == "module_info" and isinstance(value, dict) and value.get("lazy"):
        return Fail(
            f"the module has lazy layers ({', '.join(value['lazy'][:4])} have no shape before the "
            "first call, as with nn.LazyLinear): size the layers at construction, "
            "nn.Linear(in_features, out_features), so that weights can be copied into them.",
            "lazy_layers",
        )
    if outcome.off_device:
        return off_device_fail(probe)
    if probe.runner.partition(":")[0] == "grad":
        return backward.judge(ex, probe, value)
    if probe.runner.partition(":")[0] == "mode":
        return contract.judge_modes(ex, probe, value)
    returned = contract.judge_returns(ex, probe, value)
    if returned is not None:
        return returned
    try:
        ex.judge(probe, outcome.value)
    except Fail as fail:
        return fail
    return state.judge(ex, probe, value) if probe.runner == "module_info" else None


def evaluate(
    ex: Exercise, outcomes: Iterable[tuple[Probe, Outcome]], carry_forward: bool = True
) -> CheckResult:
    """Judge the outcomes in order and stop at the first failing probe.

    ``outcomes`` may be lazy, so that probes after a failure are never run. A failure whose
    only fault lies in parts graded on their own (``Fail.parts``, see parts.py) is carried
    forward: the exercise passes with a message naming them, unless ``carry_forward`` is False.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: on a shared CPU a thread pool only waits (10x slower)
    try:
        return _evaluate(ex, outcomes, carry_forward)
    finally:
        torch.set_num_threads(threads)


class Later:
    """An outcome computed when first asked for (:func:`resolved`): the inline check runs a probe
    only when the judging reaches it, or a cause is confirmed on it."""

    def __init__(self, run):
        self.run, self.outcome = run, None

    def get(self) -> Outcome:
        if self.outcome is None:
            self.outcome = self.run()
        return self.outcome


def resolved(pairs: Iterable) -> Iterable[tuple[Probe, Outcome]]:
    for probe, outcome in pairs:
        yield probe, outcome.get() if isinstance(outcome, Later) else outcome


def _evaluate(ex: Exercise, outcomes, carry_forward: bool) -> CheckResult:
    count, carried, off_device, seen = 0, None, None, []
    pending = iter(outcomes)  # (probe, outcome or Later): the probes not judged yet
    outcomes = resolved(pending)
    for probe, outcome in outcomes:
        if probe.runner.startswith("grad") and carried is not None:
            break  # the gradients of a module whose parts are at fault: those parts say it
        count += 1
        seen.append((probe, outcome))
        if outcome.on_cpu is not None:  # it failed for its device: what does the CPU run show?
            cpu = outcome.on_cpu
            fail = None if cpu.device_failed else judge_failure(ex, probe, cpu)
            if fail is None:
                off_device = off_device or (probe, outcome)  # said last: a mistake comes first
                continue
            outcome = cpu
        else:
            fail = judge_failure(ex, probe, outcome)
        if fail is not None and carry_forward and getattr(fail, "parts", None):
            carried = carried or fail  # the first such message names the parts
            continue
        if fail is not None:
            if fail.code is not None and outcome.error is None:
                rest = list(pending)  # not run yet: those confirm() needs run as it asks
                fail = confirm(ex, probe, outcome, fail, seen[:-1] + rest)
                outcomes = resolved(rest)
            if fail.code is None and not outcome.missing:  # no mistake named: an edit?
                fail = by_edit(ex, seen, outcomes, fail)
            return _failed(ex, probe, outcome, fail)
    if off_device is not None:
        return _failed(ex, *off_device, judge_failure(ex, *off_device))
    if carried is not None:
        message = f"carried forward from {', '.join(carried.parts)}: {carried}"
        return CheckResult(ex.id, True, ex.points, ex.points, [message], "passed")
    said = getattr(ex, "explanation", "") or f"passed {count} cases"  # a question says why
    return CheckResult(ex.id, True, ex.points, ex.points, [said], "passed")


def confirm(ex: Exercise, probe: Probe, outcome: Outcome, fail: Fail, others: list) -> Fail:
    """``fail`` when its cause is confirmed: a known mistake (a variant of the exercise's tables,
    framework.expect_close) is named only where it gives the learner's output on every case of
    this kind (the same runner) where it was computed, those the learner passed included. Where a
    case refutes it, the next explanation the judge has without it (another mistake, a property,
    what was seen), itself confirmed the same way."""
    runner = probe.runner
    while fail is not None and fail.code is not None:
        code = fail.code
        if "reproduced" not in _observed(ex, probe, outcome, code):
            return fail  # a property, or a check of its own: nothing to confirm here
        refuted = False
        for other, result in others:
            if other.runner != runner or other is probe:
                continue
            result = result.get() if isinstance(result, Later) else result
            if result.error is None and not result.missing and result.on_cpu is None:
                # refuted on a case where none of its variants gives the learner's output (one
                # judged output, or one form of it, may say nothing of it)
                if _observed(ex, other, result, code) == {"refuted"}:
                    refuted = True
                    break
        if not refuted:
            return fail
        framework.SUPPRESSED.add(code)
        try:
            fail = judge_failure(ex, probe, outcome) or Fail(
                "the output differs from the reference's, in a way no known mistake explains "
                "on every case."
            )
        finally:
            framework.SUPPRESSED.discard(code)
    return fail


def _observed(ex: Exercise, probe: Probe, outcome: Outcome, code: str) -> set[str]:
    """What the variants of ``code`` showed on this case ("reproduced", "refuted")."""
    framework.OBSERVED.append({})
    try:
        judge_failure(ex, probe, outcome)
        return framework.OBSERVED[-1].get(code, set())
    finally:
        framework.OBSERVED.pop()


def by_edit(ex: Exercise, seen: list, rest: Iterable, fail: Fail) -> Fail:
    """``fail`` (a difference no mistake named) named by the edit of the reference that gives the
    learner's outputs on every probe (edits/search.py), the ones after it run too; else
    ``fail``."""
    found = search.explain(ex, itertools.chain(seen[-1:], seen[:-1], rest))
    if found is None:
        return fail
    message, code = found
    return Fail(f"{message}\n   {fail}", code, fail.figure)


def _failed(ex: Exercise, probe: Probe, outcome: Outcome, fail: Fail) -> CheckResult:
    status = "missing" if outcome.missing else ("error" if outcome.error else "failed")
    message = str(fail) if outcome.missing else f"case {probe.name}: {fail}"
    mistake = f"{ex.id}/{fail.code}" if fail.code else ""
    result = CheckResult(ex.id, False, 0.0, ex.points, [message], status, mistake)
    result.figure, result.axes = fail.figure, ex.axes
    return result


def report(result: CheckResult, title: str = "") -> str:
    mark = "✅" if result.passed else "❌"
    head, *rest = result.messages or [""]
    pts = f"[{result.points:g}/{result.max_points:g} points]"
    if result.passed:
        return f"{mark} {result.exercise}: {title} — {head} {pts}".replace(":  — ", ": ")
    lines = [f"{mark} {result.exercise}: {head}"] + rest + [pts]
    return "\n".join(lines)


#: one screened case of an edit of the learner's code (localise.py): longer is a loop an edit
#: made endless
CASE_S = 0.5
#: the screen's distance from the reference's output (relative): the judge decides after it
SCREEN = 1e-3


def passes_every_case(ex: Exercise, device: torch.device, seeds: tuple[int, ...]):
    """The oracle of localise.search: whether an object passes every case of ``ex`` at each of
    ``seeds``, judged as check() judges (strictly: a fault carried forward is a fault).

    A screen runs first, on the plain CPU: the first seed's cases, those that failed an object
    before first, each compared with the course's reference where the check accepts that (no
    judge to run); most edits fail it at once. What passes the screen is judged in full."""
    cases: dict[int, list[Probe]] = {}
    killers: list[int] = []  # the screen's cases that failed an object, the latest first
    judged: list[tuple[int, int]] = []  # (seed, case) that failed one in full, the latest first
    references: dict[int, Outcome | None] = {}
    warm: set[int] = set()
    cpu = torch.device("cpu")

    def reference_of(i: int) -> Outcome | None:
        """The course's outcome on case i, where the check accepts it as right."""
        if i not in references:
            probe, ref = cases[seeds[0]][i], None
            with contextlib.suppress(Exception):
                ref = source.reference_outcome(ex, probe)
            ok = ref is not None and ref.error is None and not ref.missing
            references[i] = ref if ok and judge_failure(ex, probe, ref) is None else None
        return references[i]

    def screened_out(i: int, obj: Any) -> bool:
        probe, ref = cases[seeds[0]][i], reference_of(i)
        outcome = _run_on(ex, probe, obj, cpu)
        if ref is None or outcome.error is not None or outcome.value is None:
            return judge_failure(ex, probe, outcome) is not None
        return search.distance(outcome.value, ref.value) > SCREEN

    def fails(probe: Probe, obj: Any, screen: int | None = None) -> bool:
        if screen is None:  # the few that pass the screen: only the search's budget limits them
            outcome = run_probe(ex, probe, obj, device)  # (a first run on 'meta' imports for 1 s)
            return outcome.on_cpu is not None or judge_failure(ex, probe, outcome) is not None
        if screen not in warm:  # a case's first run may import (torch._dynamo for 'meta': 1 s)
            warm.add(screen)
            return screened_out(screen, obj)
        try:
            with source.time_limit(CASE_S):
                return screened_out(screen, obj)
        except TimeoutError:
            return True

    def passes(obj: Any) -> bool:
        for seed in seeds:
            if seed not in cases:
                cases[seed] = probes(ex, torch.Generator().manual_seed(seed))
        first = cases[seeds[0]]
        for i in killers + [i for i in range(len(first)) if i not in killers]:
            if fails(first[i], obj, screen=i):
                killers[:] = [i] + [k for k in killers if k != i]
                return False
        every = [(seed, i) for seed in seeds for i in range(len(cases[seed]))]
        for case in judged + [c for c in every if c not in judged]:  # what failed last, first
            if fails(cases[case[0]][case[1]], obj):
                judged[:] = [case] + [c for c in judged if c != case]
                return False
        return True

    return passes


def candidates(own: localise.Own, lines: set[int] | None = None) -> list[localise.Edit]:
    """The edits localise.search tries on the learner's definition, in order: the reference's
    operators and the learner's slips (edits/repairs.py, edits/tensors.py), on ``lines`` (those
    the failing case ran; all, where None); the likely ones first."""
    every = [*repairs.candidate_edits(own.tree), *tensors.tensor_edits(own.tree)]
    first = repairs.likely(own.tree) | {e.tag for e in tensors.tensor_edits(own.tree)}
    first |= {e.tag for e in every if tensors.STATE_DROPPED.search(e.tag)}  # .detach() left out
    return localise.ordered(own, lines, every, first)


def point_at_line(
    ex: Exercise, candidate: Any, seed: int, device: torch.device
) -> localise.Found | None:
    """The edit of the learner's own code that passes every case at ``seed`` and the next one
    (edits/localise.py), found within localise.BUDGET_S; None otherwise."""
    if ex.kind in ("trained", "question"):
        return None
    start = time.perf_counter()
    own = localise.own_source(candidate)
    if own is None:
        return None
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        passes = passes_every_case(ex, device, (seed, seed + 1))
        with localise.quiet():  # the learner's prints, once per edit, are not the check's
            lines = localise.executed(own, lambda: passes(candidate))  # and finds the failing case
        left = localise.BUDGET_S - (time.perf_counter() - start)
        return localise.search(own, localise.runner(own, passes), left, candidates(own, lines))
    finally:
        torch.set_num_threads(threads)


def add_line(result: CheckResult, found: localise.Found, fix: bool) -> None:
    """The hint ladder on a failed result: the line, and the edit where asked and allowed."""
    allowed = localise.level() == "fix"
    result.line = found.line_message(False)
    result.fix = found.line_message(True) if allowed else ""
    result.messages.append(result.fix if fix and allowed else result.line)


def check(
    exercise_id: str,
    candidate: Any,
    *,
    seed: int | None = None,
    quiet: bool = False,
    carry_forward: bool = True,
    device: str | torch.device | None = None,
    fix: bool = False,
) -> CheckResult:
    """Check ``candidate`` against exercise ``exercise_id``; print the verdict and return it.

    Never raises for a learner's mistake. ``seed`` picks other random cases;
    ``carry_forward=False`` fails a module whose only fault lies in a part graded on its own;
    ``device`` runs the learner's code there (default ``get_device()``; ``"fakegpu"``: as if on
    a GPU, on the CPU, see fake_gpu.py). A failure points at the line of the learner's code
    where one change makes every case pass, where such a change is found (edits/localise.py);
    ``fix=True`` shows the change too (as does the result's ``fix``), unless the instructor
    set ``ATTN2VIT_HINTS`` to "line" or "cause".
    """
    from ..device import get_device

    ex = EXERCISES.get(exercise_id) if isinstance(exercise_id, str) else None
    if ex is None:
        result = CheckResult(
            str(exercise_id), False, 0.0, 0.0, [unknown_id_message(exercise_id)], "error"
        )
        if not quiet:
            print(report(result))
        return result
    gen = torch.Generator().manual_seed(DEFAULT_SEED if seed is None else seed)
    device = get_device() if device is None else fake_gpu.named(device)
    outcomes = (
        (p, Later(functools.partial(run_probe, ex, p, candidate, device))) for p in probes(ex, gen)
    )
    result = evaluate(ex, outcomes, carry_forward)
    if not result.passed and result.status != "missing" and localise.level() != "cause":
        found = point_at_line(ex, candidate, DEFAULT_SEED if seed is None else seed, device)
        if found is not None:
            add_line(result, found, fix)
    if not quiet:
        print(report(result, ex.title))
        if result.figure is not None and "IPython" in sys.modules:  # inline in a notebook only
            try:
                from ..plotting import show_check_figure  # needs matplotlib
            except ImportError:
                return result
            show_check_figure(result)
    return result


__all__ = ["check", "EXERCISES", "CheckResult", "Exercise", "Fail", "Probe"]
