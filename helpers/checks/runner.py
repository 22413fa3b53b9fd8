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
from .fake_gpu import on_device
from .framework import Exercise, Fail, Probe, plain

NOT_IMPLEMENTED = (
    "not implemented yet: fill in the TODO above, run that cell, then run this check again."
)


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None  # the message, when the candidate raised
    missing: bool = False  # raised NotImplementedError
    off_device: bool = False  # a tensor output is not on the inputs' device


def probe_device(probe: Probe, device: torch.device) -> torch.device:
    if probe.cpu_only or (device.type == "mps" and _has_float64(probe)):
        return torch.device("cpu")
    return device


def _has_float64(probe: Probe) -> bool:
    items = list(probe.args) + list(probe.kwargs.values()) + list((probe.state or {}).values())
    return any(isinstance(t, torch.Tensor) and t.dtype == torch.float64 for t in items)


def run_probe(ex: Exercise, probe: Probe, candidate: Any, device: torch.device) -> Outcome:
    device = probe_device(probe, device)
    bound = forbidden_names_bound(candidate, ex.forbid)
    if bound:
        return Outcome(
            error=f"your code uses {bound}, which this exercise asks you to write yourself."
        )
    try:
        with on_device(device), builtins_off(ex.forbid), ops_off(ex.forbid):
            out = call_candidate(ex, probe, candidate, device)
    except NotImplementedError:
        return Outcome(missing=True, error=NOT_IMPLEMENTED)
    except (ForbiddenBuiltin, StateMismatch) as exc:
        return Outcome(error=str(exc))
    except Exception as exc:  # the learner's mistake, reported, never raised
        return Outcome(error=describe_exception(exc))
    with on_device(device):
        return Outcome(value=plain(out), off_device=not tensors_on(out, device))


def error_fail(error: str) -> Fail:
    """The :class:`Fail` for an error no exercise explained (the check's own steps coded)."""
    if "switched off during this check" in error or "asks you to write yourself" in error:
        return Fail(error, "forbidden_builtin")
    return Fail(error, "state_mismatch" if error.startswith(STATE_MISMATCH) else None)
