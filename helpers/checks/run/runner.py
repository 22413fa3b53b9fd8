"""Run a learner's object on one probe and return plain data: an :class:`Outcome`.

:data:`RUNNERS` names every way a probe calls the learner's object (``Probe.runner``, up to a
colon: "props:batch,meta" is the runner "props"). ``ex`` is what the kernel knows of the
exercise (:class:`Task`): its ``id``, ``forbid`` (the built-ins switched off) and its parts
(parts.py); an Exercise inline, a Task the grader sends. It never raises for a learner's
mistake: an exception becomes an Outcome with a message that points at the learner's own line.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import torch

from . import craft, gradients, loops, modules, parts, relations
from .calling import (
    Probe,
    Seen,
    StateMismatch,
    call_candidate,
    clone_tensors,
    describe_exception,
    plain,
    tensors_on,
)
from .fake_gpu import available, fakegpu
from .forbid import ForbiddenBuiltin, builtins_off, forbidden_names_bound, ops_off

#: runner name -> runner(ex, probe, candidate, device): what the candidate's call returns
RUNNERS = {
    "call": call_candidate,
    "module": call_candidate,
    "module_info": call_candidate,
    "props": relations.run_props,
    "device": modules.run_device,
    "device_meta": modules.run_device_meta,
    "sized": modules.run_sized,
    "train_mode": modules.run_train_mode,
    "encoder_train": modules.run_encoder_train,
    "block": modules.run_block,
    "block_train": modules.run_block_train,
    "parts": parts.run_parts,
    "training_loop": loops.run_training_loop,
    "decode": loops.run_decode,
    "kv_decode": loops.run_kv_decode,
    "predict": loops.run_predict,
    "clip_grad": craft.run_clip_grad,
    "checkpoint": craft.run_checkpoint,
    "value": lambda ex, probe, candidate, device: _value(candidate),
}
#: the gradients of a probe: a function or a module, or another runner's loop ("grad:kv_decode")
RUNNERS["grad"] = functools.partial(gradients.run_gradients, runners=RUNNERS)


def _value(candidate: Any) -> Any:
    """A question's answer (checks/questions.py) as it is; ``...`` or None: not answered yet."""
    if candidate is ... or candidate is None:
        raise NotImplementedError
    return candidate


@dataclass(frozen=True)
class Task:
    """What a grading kernel knows of an exercise (plain data from the grader; the Exercise's
    attributes of these names, see checks/framework.py)."""

    id: str
    forbid: tuple[str, ...] = ()
    parts: tuple[tuple[str, str], ...] = ()
    function_parts: tuple[str, ...] = ()
    traced: tuple[str, ...] = ()


#: the start of torch's message when one operation meets tensors of two devices
MIXED_DEVICES = "Expected all tensors to be on the same device"
#: torch's errors for a tensor on a GPU where the code needs the CPU, or the other way round
DEVICE_ERRORS = (MIXED_DEVICES, "device type tensor to numpy", "is not on the expected device")
NOT_IMPLEMENTED = (
    "not implemented yet: fill in the TODO above, run that cell, then run this check again."
)


def is_stub(exc: NotImplementedError) -> bool:
    """Whether the exercise's TODO stub raised it (``raise NotImplementedError`` bare, or with
    the notebook's "fill in this TODO"), not torch for an operation a device lacks."""
    text = str(exc)
    return not text or "TODO" in text


@dataclass
class Outcome:
    """What one probe gave: the output as plain data, or the error, and what the runner saw."""

    value: Any = None
    error: str | None = None  # the message, when the candidate raised
    missing: bool = False  # raised NotImplementedError
    off_device: bool = False  # a tensor output is not on the inputs' device
    input_changed: bool = False  # wrote into an input (calling.InputChanged): no value
    random_in_eval: bool = False  # two eval-mode calls differed (calling.RandomInEval): no value
    # the same probe on the CPU, when this one failed for its device or raised: a mistake that
    # the CPU run shows is named first (checks._evaluate), on every machine alike
    on_cpu: Outcome | None = None

    #: the yes-or-no fields, as the grader's kernel writes them and its judge reads them back
    FLAGS = ("missing", "off_device", "input_changed", "random_in_eval")

    @property
    def device_failed(self) -> bool:
        return self.off_device or any(words in (self.error or "") for words in DEVICE_ERRORS)


def probe_device(probe: Probe, device: torch.device) -> torch.device:
    """Where the probe runs: ``device``, but never the CPU alone where fakegpu can stand in.

    On a CPU-only machine the learner's code runs on fakegpu (fake_gpu.py), so that a tensor
    made without ``device=`` fails there as it fails on a GPU: one verdict on every machine.
    ``cpu_only`` probes (a trained model, a training loop: the learner's own objects) stay on
    the CPU, and so do float64 probes on mps (no float64 there).
    """
    if probe.cpu_only or (device.type == "mps" and _has_float64(probe)):
        return torch.device("cpu")
    if device.type == "cpu" and available():
        return fakegpu()
    return device


def _has_float64(probe: Probe) -> bool:
    items = list(probe.args) + list(probe.kwargs.values()) + list((probe.state or {}).values())
    return any(isinstance(t, torch.Tensor) and t.dtype == torch.float64 for t in items)


def call(ex, probe: Probe, candidate: Any, device: torch.device) -> Any:
    """The candidate called as ``probe.runner`` says; raises whatever the candidate raises."""
    name = probe.runner.partition(":")[0]
    if name not in RUNNERS:
        raise ValueError(f"exercise {ex.id} has no runner {probe.runner!r}")
    plain_runner = name in ("module_info", "grad")  # the learner's module as it is, no parts
    runner = RUNNERS[name] if plain_runner else parts.wrapped(ex, RUNNERS[name])
    # copies: the judge builds its reference from probe.args
    mine = dataclasses.replace(
        probe, args=clone_tensors(probe.args), kwargs=clone_tensors(probe.kwargs)
    )
    return runner(ex, mine, candidate, device)


def run_probe(ex, probe: Probe, candidate: Any, device: torch.device) -> Outcome:
    """The candidate on ``probe`` (on :func:`probe_device`), and on the CPU too where that
    failed for its device or raised (``Outcome.on_cpu``)."""
    device = probe_device(probe, device)
    outcome = _run_on(ex, probe, candidate, device)
    if device.type != "cpu" and (outcome.device_failed or outcome.error and not outcome.missing):
        # an error there may be the device's (a tensor made on the CPU, .numpy()): the CPU
        # run tells a mistake of the learner's from a slip of devices
        outcome.on_cpu = _run_on(ex, probe, candidate, torch.device("cpu"))
    return outcome


def _run_on(ex, probe: Probe, candidate: Any, device: torch.device) -> Outcome:
    bound = forbidden_names_bound(candidate, ex.forbid)
    if bound:
        return Outcome(
            error=f"your code uses {bound}, which this exercise asks you to write yourself."
        )
    try:
        with builtins_off(ex.forbid), ops_off(ex.forbid):
            out = call(ex, probe, candidate, device)
    except NotImplementedError as exc:
        if is_stub(exc):
            return Outcome(missing=True, error=NOT_IMPLEMENTED)
        return Outcome(error=describe_exception(exc))  # torch's: an op it lacks somewhere
    except Seen as seen:
        return Outcome(**{seen.field: True})
    except (ForbiddenBuiltin, StateMismatch) as exc:
        return Outcome(error=str(exc))
    except Exception as exc:  # the learner's mistake, reported, never raised
        return Outcome(error=describe_exception(exc))
    return Outcome(value=plain(out), off_device=not tensors_on(out, device))
