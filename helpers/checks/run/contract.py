"""The runner "mode": what a learner's code does to the train/eval mode of a module it is given
(kernel side: plain data out, the judge is checks/contract.py).

A method (``attention_maps``) or a function handed a model (``greedy_decode``,
``load_checkpoint``) runs twice, once on a module set to training mode and once on one set to
eval mode; the runner reports the mode each was in before and after the call. Every module of
the tree counts: "train" (all in training mode), "eval" (none), or "mixed".

    mode          the exercise's module built from ``probe.init``, ``probe.state`` loaded,
                  ``probe.info["method"]`` called on ``probe.args``
    mode:<inner>  the runner <inner> (decode, training_loop, checkpoint) with the learner's
                  function wrapped: the nn.Module arguments are set to the starting mode just
                  before the call, their mode read just after it

{"modes": [{"start": "train", "after": ...}, {"start": "eval", "after": ...}], "what": name},
or {"skipped": why} where the call did not get that far (the other cases report it).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any

import torch
from torch import nn

from .calling import clone_tensors, load_weights, to_device

STARTS = ("train", "eval")


def mode_of(module: nn.Module) -> str:
    """The mode of the whole tree: "train" (every module training), "eval" (none), "mixed"."""
    flags = {m.training for m in module.modules()}
    return "mixed" if len(flags) > 1 else ("train" if flags.pop() else "eval")


def run_modes(ex, probe, candidate, device, runners: dict | None = None) -> dict:
    inner = probe.runner.partition(":")[2]
    modes = []
    for start in STARTS:
        try:
            if inner:
                seen = _function_modes(ex, probe, candidate, device, inner, start, runners)
            else:
                seen = _method_modes(probe, candidate, device, start)
        except Exception as exc:  # the forward cases report the learner's errors
            return {"skipped": f"{type(exc).__name__}: {exc}"[:200]}
        if seen is None:
            return {"skipped": "no module"}
        modes.append({"start": start, "after": seen[1], "what": seen[0]})
    return {"modes": modes}


def _method_modes(probe, candidate, device, start: str):
    with torch.random.fork_rng(devices=[]):  # the notebook's random numbers stay as they were
        module = candidate(**(probe.init or {}))
    if not isinstance(module, nn.Module):
        return None
    load_weights(module, probe.state or {})
    module.to(device).train(start == "train")
    method = probe.info.get("method", "forward")
    args = clone_tensors(to_device(probe.args, device))
    kwargs = clone_tensors(to_device(probe.kwargs, device))
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        getattr(module, method)(*args, **kwargs)
    return f"`{method}`", mode_of(module)


def _function_modes(ex, probe, candidate, device, inner: str, start: str, runners: dict):
    """The runner ``inner`` with ``candidate`` wrapped; (argument's name, mode after)."""
    found: list = []

    @functools.wraps(candidate)
    def wrapped(*args, **kwargs):
        names = _arg_names(candidate, len(args))
        modules = [(n, a) for n, a in zip(names, args) if isinstance(a, nn.Module)]
        modules += [(n, a) for n, a in kwargs.items() if isinstance(a, nn.Module)]
        for _, m in modules:
            m.train(start == "train")
        out = candidate(*args, **kwargs)  # raised: nothing to say of the mode (the cases say it)
        found.extend((n, mode_of(m)) for n, m in modules)
        return out

    try:
        with torch.random.fork_rng(devices=[]):
            runners[inner](ex, dataclasses.replace(probe, runner=inner), wrapped, device)
    except Exception:
        if not found:  # the learner's function raised, or was never called: said elsewhere
            raise
    if not found:
        return None
    name, after = found[0]
    return f"`{name}`", after


def _arg_names(candidate: Any, count: int) -> list[str]:
    try:
        params = list(inspect.signature(candidate).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"argument {i + 1}" for i in range(count)]
