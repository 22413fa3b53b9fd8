"""Runners that hand a device to a function, watch tensor sizes, or run a module in training
mode with the check's fixed dropout masks (kernel side: plain data out, no reference).

    device         candidate(*args, device=<the check's device>)
    device_meta    the same with device "meta": the result's device, shape and dtype
    sized          the call under :class:`LargestTensor`: {"out", "largest"}
    train_mode     build, load ``state``, forward in training mode (masks of seed
                   ``kwargs["dropout_seed"]``), then in eval mode: {"train", "eval",
                   "dropout_calls"}, and "train_at_zero": the training-mode output of the
                   module built with dropout=0.0
    encoder_train  build, load the weights, forward in training mode (masks of DROPOUT_SEED)
    block          a block in eval mode; a broadcasting error in a residual sum as data
    block_train    the same in training mode (masks of DROPOUT_SEED)

The module runners report an input changed in place by raising InputChanged (calling.py), as
the plain runners do.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn
from torch.utils._pytree import tree_leaves

from .calling import (
    RandomInEval,
    clone_tensors,
    describe_exception,
    inputs_kept,
    load_state,
    load_weights,
    same,
    to_device,
)
from .forbid import QuickMode, resolve

# --------------------------------------------------------------------------- device


def run_device(ex, probe, candidate, device):
    return candidate(*probe.args, **probe.kwargs, device=device)


def run_device_meta(ex, probe, candidate, device):
    out = candidate(*probe.args, **probe.kwargs, device=torch.device("meta"))
    if not isinstance(out, torch.Tensor):
        return {"type": type(out).__name__}
    return {"device": out.device.type, "shape": list(out.shape), "dtype": str(out.dtype)}


# --------------------------------------------------------------------------- size limits


class LargestTensor(QuickMode):
    """Records the largest number of elements of any tensor an operation produces."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self.largest = max(self.largest, t.numel())
        return out


def run_sized(ex, probe, candidate, device):
    """For a contract that says "without a T x T matrix" (the judge: probes.too_large)."""
    args = to_device(probe.args, device)
    with LargestTensor() as spy:
        out = candidate(*args, **probe.kwargs)
    return {"out": out, "largest": spy.largest}


# --------------------------------------------------------------------------- dropout

# nn.Dropout calls F.dropout; torch.dropout is the same operation under another name
DROPOUT_FUNCTIONS = ("torch.nn.functional.dropout", "torch.dropout")
#: the seed of the fixed masks of the training-mode cases of 06, 07, 09 (any fixed number)
DROPOUT_SEED = 20250611


def dropout_keep(numel: int, p: float, seed: int) -> torch.Tensor:
    """The fixed keep-mask (flat, bool, CPU) of the check's dropout for a tensor of ``numel``
    elements: the kernel and the judge make the same one. It depends on the size only, so a
    reshaped or re-laid-out tensor (B*H, T, T) gets the same mask as (B, H, T, T)."""
    gen = torch.Generator().manual_seed(seed * 1_000_003 + numel)
    return torch.rand(numel, generator=gen, dtype=torch.float64) >= p


def fixed_dropout(t: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """Dropout of ``t`` with the check's fixed mask (the kept values scaled by 1 / (1 - p))."""
    keep = dropout_keep(t.numel(), p, seed).reshape(t.shape).to(t.device)
    return t * keep / (1.0 - p)


@contextlib.contextmanager
def dropout_fixed(seed: int):
    """F.dropout and torch.dropout replaced by :func:`fixed_dropout`; yields the list of calls
    (one entry each), so that a judge can tell "no dropout" from "dropout written by hand"."""
    calls: list[int] = []

    def dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0.0:
            return input
        calls.append(input.numel())
        if inplace:
            return input.copy_(fixed_dropout(input, p, seed))
        return fixed_dropout(input, p, seed)

    saved = []
    try:
        for dotted in DROPOUT_FUNCTIONS:
            owner, attr = resolve(dotted)
            saved.append((owner, attr, getattr(owner, attr)))
            setattr(owner, attr, dropout)
        yield calls
    finally:
        for owner, attr, original in reversed(saved):
            setattr(owner, attr, original)


@contextlib.contextmanager
def rng_untouched():
    """Build the learner's module without drawing from the notebook's global RNG: a check run
    before training must leave the notebook's random numbers as they were."""
    with torch.random.fork_rng(devices=[]):
        yield


def train_forward(module: nn.Module, args: tuple, kwargs: dict, seed: int) -> tuple:
    """(output, dropout calls) of ``module`` in training mode under :func:`dropout_fixed`
    (``args``, ``kwargs`` already on the module's device)."""
    module.train()
    with torch.no_grad(), dropout_fixed(seed) as calls:
        return module(*args, **kwargs), len(calls)


# --------------------------------------------------------------------------- training mode


def run_train_mode(ex, probe, candidate, device):
    module = candidate(**(probe.init or {}))
    if not isinstance(module, nn.Module):
        return module
    if probe.state is not None:
        load_state(module, probe.state)
    module.to(device)
    kwargs = dict(probe.kwargs)
    seed = kwargs.pop("dropout_seed")
    args, kwargs = to_device(probe.args, device), to_device(kwargs, device)
    before = clone_tensors((args, kwargs))
    train, calls = train_forward(module, args, kwargs, seed)
    with torch.no_grad():  # the module judged in the mode it is left in: eval mode is eval mode
        evald = module.eval()(*args, **kwargs)
        if not same(evald, module(*args, **kwargs)):
            raise RandomInEval  # a dropout eval() leaves on: nothing below can be read from it
    out = {"train": train, "eval": evald, "dropout_calls": calls}
    if "dropout" in (probe.init or {}):  # the same module built with dropout=0.0: no dropout
        with rng_untouched():
            zero = candidate(**{**probe.init, "dropout": 0.0})
        if isinstance(zero, nn.Module):
            if probe.state is not None:
                load_state(zero, probe.state)
            out["train_at_zero"] = train_forward(zero.to(device), args, kwargs, seed)[0]
    return inputs_kept(out, before, (args, kwargs))


def run_encoder_train(ex, probe, candidate, device):
    with rng_untouched():  # the notebook's random numbers stay as they were
        module = candidate(**probe.init)
    if not isinstance(module, nn.Module):
        return module
    load_weights(module, probe.state)  # a positional table of another max_len stays as built
    module.to(device)
    args, kwargs = to_device(probe.args, device), to_device(probe.kwargs, device)
    before = clone_tensors((args, kwargs))
    out = train_forward(module, args, kwargs, DROPOUT_SEED)[0]
    return inputs_kept(out, before, (args, kwargs))


def _block_output(probe, candidate, device, train: bool):
    with rng_untouched():  # the notebook's random numbers stay as they were
        module = candidate(**probe.init)
    if not isinstance(module, nn.Module):
        return module
    load_weights(module, probe.state)
    args, kwargs = to_device(probe.args, device), to_device(probe.kwargs, device)
    before = clone_tensors((args, kwargs))
    try:
        if train:
            out = train_forward(module.to(device), args, kwargs, DROPOUT_SEED)[0]
        else:
            with torch.no_grad():
                out = module.to(device).eval()(*args, **kwargs)
        return inputs_kept(out, before, (args, kwargs))
    except RuntimeError as exc:
        if "must match the size of tensor" not in str(exc):
            raise
        return {"broadcast_error": describe_exception(exc)}


def run_block(ex, probe, candidate, device):
    return _block_output(probe, candidate, device, train=False)


def run_block_train(ex, probe, candidate, device):
    return _block_output(probe, candidate, device, train=True)
