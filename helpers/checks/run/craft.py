"""Runners of training craft (07b), kernel side: the learner's function gets what a training loop
hands it, and the runner returns what it did to it, as plain data.

    clip_grad   parameters whose gradients (some None) come from the probe, handed to
                ``clip_grad_norm(parameters, max_norm)`` as a list or as a generator (as
                ``model.parameters()`` is): what it returned, the gradients and parameters after
    checkpoint  a tiny model and AdamW trained a few steps, the checkpoint written and read in a
                temporary folder (``probe.kwargs["which"]``: the learner's ``save_checkpoint``
                with the course's load, or the course's save with the learner's
                ``load_checkpoint``), then the same steps on the run that went on and on the
                resumed one: their losses, which must be equal to the last bit
"""

from __future__ import annotations

import os
import shutil
import tempfile

import torch
import torch.nn.functional as F
from torch import nn

from .calling import describe_exception, to_device

# --------------------------------------------------------------------------- gradient clipping


def run_clip_grad(ex, probe, candidate, device):
    """{"value": what the candidate returned, "grads": each parameter's gradient after (None
    where it is None), "params": the parameters after, "same_grad": whether each gradient is
    still the tensor it was (scaled in place)}."""
    values, grads, max_norm = probe.args
    params = []
    for value, grad in zip(values, grads):
        p = nn.Parameter(value.clone().to(device))
        if grad is not None:
            p.grad = grad.clone().to(device)
        params.append(p)
    before = [p.grad for p in params]
    handed = iter(params) if probe.kwargs.get("generator") else list(params)
    value = candidate(handed, max_norm)
    return {
        "value": value,
        "grads": [None if p.grad is None else p.grad.detach() for p in params],
        "params": [p.detach() for p in params],
        "same_grad": [p.grad is g for p, g in zip(params, before)],
    }


# --------------------------------------------------------------------------- checkpoints


def tiny_model(sizes, state: dict) -> nn.Module:
    """Linear, BatchNorm (buffers: a state_dict holds more than the parameters), tanh, Linear, in
    float64, with the probe's weights and buffers."""
    d_in, d_hidden, d_out = sizes
    model = nn.Sequential(
        nn.Linear(d_in, d_hidden, dtype=torch.float64),
        nn.BatchNorm1d(d_hidden, dtype=torch.float64),
        nn.Tanh(),
        nn.Linear(d_hidden, d_out, dtype=torch.float64),
    )
    model.load_state_dict(state)
    return model


def adamw(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x, y) -> float:
    """One step; the loss before it."""
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item()


def course_save(path: str, model, optimizer, step: int) -> None:
    torch.save(
        {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path
    )


def read_checkpoint(path: str) -> dict:
    """The course's load, made to report: {"state": the checkpoint} or what is wrong with the
    file (plain data)."""
    if not os.path.exists(path):
        there = sorted(os.listdir(os.path.dirname(path)))
        return {"problem": "no_file", "found": there[:5]}
    try:
        state = torch.load(path, weights_only=True)
    except Exception as exc:  # objects pickled: what are they?
        kinds = None
        try:
            obj = torch.load(path, weights_only=False)  # the learner's own file, in its kernel
            kinds = (
                {str(k): type(v).__name__ for k, v in obj.items()}
                if isinstance(obj, dict)
                else type(obj).__name__
            )
        except Exception:
            pass
        return {"problem": "unsafe", "error": str(exc).splitlines()[0][:300], "kinds": kinds}
    if not isinstance(state, dict):
        return {"problem": "not_a_dict", "kind": type(state).__name__}
    keys = sorted(str(k) for k in state)
    if not {"model", "optimizer", "step"} <= set(keys):
        return {"problem": "keys", "keys": keys}
    return {"state": state}


def run_checkpoint(ex, probe, candidate, device):
    """{"step": the step read back, "went_on": the losses of the run that saved and went on,
    "resumed": those of the run loaded from the checkpoint, "fresh": the fresh model's first
    loss before loading, "not_restored": :func:`not_restored` just after loading}, or
    {"problem": ...} where the course's load cannot read the learner's file."""
    kw = probe.kwargs
    lr, decay, at = kw["lr"], kw["weight_decay"], kw["save_at"]
    batches = [tuple(b) for b in to_device(kw["batches"], torch.device("cpu"))]
    model = tiny_model(kw["sizes"], kw["state"])
    optimizer = adamw(model, lr, decay)
    for x, y in batches[:at]:
        train_step(model, optimizer, x, y)
    folder = tempfile.mkdtemp(prefix="checkpoint-")
    path = os.path.join(folder, "checkpoint.pt")
    try:
        saved = {k: v.clone() for k, v in model.state_dict().items()}  # what a load restores
        if kw["which"] == "save":
            candidate(path, model, optimizer, at)
        else:
            course_save(path, model, optimizer, at)
        went_on = [train_step(model, optimizer, x, y) for x, y in batches[at:]]
        fresh = tiny_model(kw["sizes"], kw["fresh"])
        fresh_optimizer = adamw(fresh, lr, decay)
        with torch.no_grad():  # the fresh model's first loss, on a copy (batch norm counts it)
            first = F.cross_entropy(tiny_model(kw["sizes"], kw["fresh"])(batches[at][0]),
                                    batches[at][1]).item()  # fmt: skip
        if kw["which"] == "save":
            found = read_checkpoint(path)
            if "state" not in found:
                return found
            state = found["state"]
            for name, target in (("model", fresh), ("optimizer", fresh_optimizer)):
                try:
                    target.load_state_dict(state[name])
                except Exception as exc:
                    return {"problem": f"{name}_error", "error": describe_exception(exc)}
            step = state["step"]
        else:
            step = candidate(path, fresh, fresh_optimizer)
        restored = not_restored(fresh, saved)
        resumed = [train_step(fresh, fresh_optimizer, x, y) for x, y in batches[at:]]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"step": step, "went_on": went_on, "resumed": resumed, "fresh": first,
            "not_restored": restored}  # fmt: skip


def not_restored(model: nn.Module, saved: dict) -> dict:
    """The entries of the saved state_dict that the loaded model does not hold as saved, as
    {"parameters": names, "buffers": names} (a batch norm's running statistics are buffers:
    the training-mode losses do not read them, an evaluation does)."""
    params = dict(model.named_parameters())
    own = model.state_dict()
    differ = [k for k, v in saved.items() if k not in own or not torch.equal(own[k], v)]
    return {
        "parameters": [k for k in differ if k in params],
        "buffers": [k for k in differ if k not in params],
    }
