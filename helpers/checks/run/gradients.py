"""The runner "grad": the gradients of a learner's function or module, the backward half of the
contract (a ``.detach()`` or a ``torch.no_grad()`` leaves the forward pass right and the
gradients wrong).

The probe is one of the exercise's own forward cases (``checks.backward.gradient_probe``), run
as a function, as a module, or through the runner named after a colon ("grad:kv_decode": the
decoding loop of 08's cache step); the loss is the outputs weighted by fixed random numbers, so
that every output element counts.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import torch
from torch import nn
from torch.autograd import grad as autograd_grad
from torch.utils._pytree import tree_leaves

from .calling import Probe, clone_tensors, load_weights, to_device

# autograd_grad is bound at import: the backward exercises switch torch.autograd.grad off while
# the learner's code runs, this runner's own call included

#: the seed of the weights that make the outputs one number to differentiate
LOSS_SEED = 7


def run_gradients(
    ex, probe: Probe, candidate: Any, device: torch.device, runners: dict | None = None
) -> dict:
    """{"inputs": {name: gradient or None}, "params": {name: gradient or None}} of the
    weighted sum of the floating outputs (a function: ``probe.init`` is None; a module: built
    with ``probe.init``, ``probe.state`` loaded, in eval mode)."""
    args = clone_tensors(to_device(probe.args, device))
    kwargs = clone_tensors(to_device(probe.kwargs, device))
    names = _names(candidate, probe, len(args))
    inputs = {n: t for n, t in zip(names, args) if _floating(t)}
    inputs.update({k: t for k, t in kwargs.items() if _floating(t)})
    for t in inputs.values():
        t.requires_grad_(True)
    params: dict[str, torch.Tensor] = {}
    inner = probe.runner.partition(":")[2]  # "grad:kv_decode": that runner, differentiated
    with torch.enable_grad():
        if inner:  # ``runners``: runner.RUNNERS, which holds this runner too
            out = runners[inner](ex, dataclasses.replace(probe, args=args, kwargs=kwargs),
                                 candidate, device)  # fmt: skip
        elif probe.init is None:
            out = candidate(*args, **kwargs)
        else:
            module = candidate(**probe.init)
            if not isinstance(module, nn.Module):
                return {}
            load_weights(module, probe.state or {})
            module.to(device).eval()
            params = dict(module.named_parameters())
            out = module(*args, **kwargs)
        outs = [t for t in tree_leaves(out) if _floating(t) and t.requires_grad]
        if not outs:
            return {"inputs": dict.fromkeys(inputs), "params": dict.fromkeys(params)}
        gen = torch.Generator().manual_seed(LOSS_SEED)
        loss = sum(
            (torch.where(o.isfinite(), o, 0) * torch.randn(o.shape, generator=gen).to(o)).sum()
            for o in outs
        )
        wrt = list(inputs.values()) + list(params.values())
        grads = autograd_grad(loss, wrt, allow_unused=True)
    found = dict(zip(list(inputs) + list(params), grads))
    return {
        "inputs": {n: found[n] for n in inputs},
        "params": {n: found[n] for n in params},
    }


def _floating(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and t.is_floating_point()


def _names(candidate: Any, probe: Probe, count: int) -> list[str]:
    """The positional arguments' names in the learner's signature ("argument 2" where unknown)."""
    target = candidate if probe.init is None else getattr(candidate, "forward", candidate)
    try:
        params = [p for p in inspect.signature(target).parameters if p != "self"]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"argument {i + 1}" for i in range(count)]
