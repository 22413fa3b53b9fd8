"""Run a learner's object on one probe and return plain data: an :class:`Outcome`.

It never raises for a learner's mistake: an exception becomes an Outcome with a message that
points at the learner's own line. Calling the object is ``calling.py``'s (its names are
importable from here too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .calling import (
    STATE_MISMATCH,
    ForbiddenBuiltin,
    StateMismatch,
    builtins_off,
    call_candidate,
    describe_exception,
    forbidden_names_bound,
    ops_off,
    tensors_on,
)
from .fake_gpu import available, fakegpu
from .framework import Exercise, Fail, Probe, plain

#: the start of torch's message when one operation meets tensors of two devices
MIXED_DEVICES = "Expected all tensors to be on the same device"
#: torch's errors for a tensor on a GPU where the code needs the CPU, or the other way round
DEVICE_ERRORS = (MIXED_DEVICES, "device type tensor to numpy", "is not on the expected device")
#: a tensor made on the CPU met the inputs on the check's device (a GPU, or fakegpu standing in)
OTHER_DEVICE = (
    "your code mixes tensors of two devices: the check runs it on a second device, as a GPU "
    "would, and a tensor your code made is on the CPU. Make new tensors where the inputs are "
    "(torch.zeros(..., device=x.device), torch.ones_like(x)), and keep a module's tensors in "
    "parameters or buffers (self.register_buffer), which .to(device) moves."
)
NOT_IMPLEMENTED = (
    "not implemented yet: fill in the TODO above, run that cell, then run this check again."
)


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None  # the message, when the candidate raised
    missing: bool = False  # raised NotImplementedError
    off_device: bool = False  # a tensor output is not on the inputs' device
    # the same probe on the CPU, when this one failed for its device or raised: a mistake that
    # the CPU run shows is named first (checks._evaluate), on every machine alike
    on_cpu: Outcome | None = None

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


def run_probe(ex: Exercise, probe: Probe, candidate: Any, device: torch.device) -> Outcome:
    """The candidate on ``probe`` (on :func:`probe_device`), and on the CPU too where that
    failed for its device or raised (``Outcome.on_cpu``)."""
    device = probe_device(probe, device)
    outcome = _run_on(ex, probe, candidate, device)
    if device.type != "cpu" and (outcome.device_failed or outcome.error and not outcome.missing):
        # an error there may be the device's (a tensor made on the CPU, .numpy()): the CPU
        # run tells a mistake of the learner's from a slip of devices
        outcome.on_cpu = _run_on(ex, probe, candidate, torch.device("cpu"))
    return outcome


def _run_on(ex: Exercise, probe: Probe, candidate: Any, device: torch.device) -> Outcome:
    bound = forbidden_names_bound(candidate, ex.forbid)
    if bound:
        return Outcome(
            error=f"your code uses {bound}, which this exercise asks you to write yourself."
        )
    try:
        with builtins_off(ex.forbid), ops_off(ex.forbid):
            out = call_candidate(ex, probe, candidate, device)
    except NotImplementedError:
        return Outcome(missing=True, error=NOT_IMPLEMENTED)
    except (ForbiddenBuiltin, StateMismatch) as exc:
        return Outcome(error=str(exc))
    except Exception as exc:  # the learner's mistake, reported, never raised
        return Outcome(error=describe_exception(exc))
    return Outcome(value=plain(out), off_device=not tensors_on(out, device))


def error_fail(error: str) -> Fail:
    """The :class:`Fail` for an error no exercise explained (the check's own steps coded)."""
    if "switched off during this check" in error or "asks you to write yourself" in error:
        return Fail(error, "forbidden_builtin")
    if any(words in error for words in DEVICE_ERRORS):
        return Fail(OTHER_DEVICE + "\n   " + error, "off_device")
    return Fail(error, "state_mismatch" if error.startswith(STATE_MISMATCH) else None)


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
