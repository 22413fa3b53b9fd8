"""Switch off the built-ins an exercise re-implements while the candidate runs (kernel side).

``Exercise.forbid`` names them: a dotted Python name is replaced by a function that raises
:class:`ForbiddenBuiltin` (:func:`builtins_off`); an ``aten.NAME`` entry is refused at the
dispatcher, however it is reached (:func:`ops_off`); a forbidden function the learner bound to
a name of their own before the check is found by identity (:func:`forbidden_names_bound`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

#: code of this package and of torch: callers that keep an OUT_OF_TORCH name
OWN_CODE = (
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    os.path.dirname(os.path.abspath(torch.__file__)),
)


class ForbiddenBuiltin(RuntimeError):
    pass


def resolve(dotted: str):
    """'torch.nn.functional.softmax' -> (owner object, attribute name)."""
    parts = dotted.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ValueError(f"cannot resolve {dotted!r}")


#: the ways out of torch: values read into NumPy or Python numbers, where no tensor size is
#: measured. An exercise that states a memory rule switches them off for the learner's own code
#: (torch's and the checks' code keep them: printing a tensor reads its values).
OUT_OF_TORCH = (
    "torch.Tensor.numpy",
    "torch.Tensor.__array__",
    "torch.Tensor.tolist",
    "torch.Tensor.item",
    "torch.Tensor.__float__",
)


def _blocked(dotted: str, original):
    """The stand-in for a switched-off built-in (``original``: what the learner's callers of an
    OUT_OF_TORCH name are refused, and torch's own callers get)."""
    if dotted not in OUT_OF_TORCH:

        def blocked(*args, **kwargs):
            raise ForbiddenBuiltin(
                f"{dotted} is switched off during this check: this exercise is to write it "
                "yourself from basic tensor operations."
            )

        return blocked

    def out_of_torch(*args, **kwargs):
        caller = os.path.abspath(sys._getframe(1).f_code.co_filename)
        if caller.startswith(OWN_CODE):
            return original(*args, **kwargs)
        raise ForbiddenBuiltin(
            f"{dotted} is switched off during this check: this exercise is done with torch "
            "tensors, whose sizes the check measures; values moved to NumPy or Python numbers "
            "are out of its sight."
        )

    return out_of_torch


@contextlib.contextmanager
def builtins_off(names: tuple[str, ...]):
    """Replace each named built-in by a function that raises ForbiddenBuiltin (``aten.NAME``
    entries are dispatcher ops, switched off by ``ops_off``; a name this torch lacks, such as
    ``F.rms_norm`` before 2.4, has nothing to switch off)."""
    saved = []
    try:
        for dotted in names:
            if dotted.startswith("aten."):  # a dispatcher op: ops_off below
                continue
            try:
                owner, attr = resolve(dotted)
            except (AttributeError, ValueError):
                continue
            if not hasattr(owner, attr):
                continue
            own = attr in vars(owner)
            original = vars(owner)[attr] if own else None
            # saved first: a time limit's alarm (edits/localise.py) between the two lines
            # leaves nothing switched off for good
            saved.append((owner, attr, own, original))
            setattr(owner, attr, _blocked(dotted, getattr(owner, attr)))
        yield
    finally:
        for owner, attr, own, original in reversed(saved):
            if own:
                setattr(owner, attr, original)
            elif attr in vars(owner):  # it was inherited (torch.Tensor's live on a C base class)
                delattr(owner, attr)


class QuickMode(TorchDispatchMode):
    """A dispatch mode of the checks'. torch wraps a mode's ``__torch_dispatch__`` in
    ``torch._dynamo.disable`` unless ``_should_skip_dynamo`` says no (its documented switch);
    that wrapper's first call imports torch._dynamo, 0.9 s of a fresh kernel's first check.
    The checks never compile, so they say no."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False


class _OpsOff(QuickMode):
    """Refuse the named dispatcher ops while the candidate runs, however they are reached: a
    function captured before the check, ``torch.ops.aten``, an ``nn`` module, or another
    built-in on the same kernel (``F.group_norm`` computes a LayerNorm with native_group_norm)."""

    def __init__(self, ops: set):
        super().__init__()
        self.ops = ops

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket in self.ops:
            raise ForbiddenBuiltin(
                f"your code reaches torch's kernel {func.overloadpacket.__name__}, a built-in "
                "that computes what this exercise asks you to write yourself from basic tensor "
                "operations (it is switched off during this check, however it is called)."
            )
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def ops_off(names: tuple[str, ...]):
    """Switch off the ``aten.NAME`` entries of ``names`` at the dispatcher (those this torch
    has: ``_safe_softmax`` exists since 2.5)."""
    ops = {getattr(torch.ops.aten, n[5:], None) for n in names if n.startswith("aten.")}
    ops.discard(None)
    if not ops:
        yield
        return
    with _OpsOff(ops):
        yield


def forbidden_names_bound(candidate: Any, names: tuple[str, ...]) -> str | None:
    """A name the candidate imported directly (``from torch import softmax``) escapes the
    patch above; find such global names by identity."""
    objs = {}
    for dotted in names:
        try:
            owner, attr = resolve(dotted)
            objs[id(getattr(owner, attr))] = dotted
        except Exception:
            continue
    funcs = []
    if isinstance(candidate, type):
        funcs = [v for v in vars(candidate).values() if callable(v) and hasattr(v, "__globals__")]
    elif hasattr(candidate, "__globals__"):
        funcs = [candidate]
    for fn in funcs:
        for name in fn.__code__.co_names:
            value = fn.__globals__.get(name)
            if value is not None and id(value) in objs:
                return objs[id(value)]
    return None
