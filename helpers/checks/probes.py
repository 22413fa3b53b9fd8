"""Probe pieces shared by several notebooks: switched-off built-ins, random masks, the runner
that hands a device to a function, and dropout with fixed masks for training-mode cases.

The runners here run in the learner's kernel (untrusted side) and return plain data; the
``judge_*`` helpers run on the trusted side.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from .calling import _resolve, load_state, to_device
from .framework import Fail, Probe, close, describe_difference, rand_bool, randint
from .references import Drops

# the built-ins a from-scratch attention must not call (F.scaled_dot_product_attention is
# torch._C._nn.scaled_dot_product_attention under another name)
# the kernels behind them (runner.ops_off: off at the dispatcher, however they are called);
# _safe_softmax is the math path's softmax (torch >= 2.5), which a learner's softmax never is
ATTENTION_OPS = (
    "aten._safe_softmax",
    "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten._scaled_dot_product_flash_attention",
    "aten._scaled_dot_product_efficient_attention",
    "aten._scaled_dot_product_cudnn_attention",
    "aten._native_multi_head_attention",
)
ATTENTION_BUILTINS = (
    "torch._C._nn.scaled_dot_product_attention",
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    *ATTENTION_OPS,
)
# softmax's own kernels (a from-scratch softmax is exp and sum)
SOFTMAX_OPS = ("aten._softmax", "aten._safe_softmax", "aten._log_softmax")
# every normalisation kernel: LayerNorm, and GroupNorm, BatchNorm or InstanceNorm reshaped to it
NORM_OPS = (
    "aten.native_layer_norm",
    "aten.native_group_norm",
    "aten.native_batch_norm",
    "aten._native_batch_norm_legit",
    "aten._native_batch_norm_legit_no_training",
    "aten.rms_norm",
    "aten._fused_rms_norm",
)


def mask_with_a_key_per_row(gen, *shape: int) -> torch.Tensor:
    """A random boolean mask in which every query may attend to at least one key."""
    m = rand_bool(gen, *shape, p=0.6)
    first = randint(gen, 0, shape[-1], *shape[:-1])
    return m | torch.nn.functional.one_hot(first, shape[-1]).bool()


# --------------------------------------------------------------------------- errors

#: the message of the RuntimeError raised by Python's `if`, `max`, `and` on a whole tensor
AMBIGUOUS = "Boolean value of Tensor with more than one value is ambiguous"


def ambiguous_bool(error: str, what: str = "x") -> Fail | None:
    """Name the mistake behind "Boolean value of Tensor ... is ambiguous" (shared by 00-01)."""
    if AMBIGUOUS not in error:
        return None
    line = error.rsplit("\n", 1)[-1]
    if "max(" in line and "torch.max" not in line and ".max(" not in line:
        return Fail(
            f"Python's max() compares whole tensors, not their elements: max({what}, 0) asks "
            "one True/False of a tensor with many values. Work element-wise: "
            f"torch.where({what} > 0, {what}, 0.0) or {what} * ({what} > 0).\n   " + error,
            "python_max",
        )
    return Fail(
        "a Python `if`, `and`, `or` or max() on a tensor asks one True/False of many values: "
        f"work element-wise with torch.where({what} > 0, ...) or a mask.\n   " + error,
        "tensor_as_bool",
    )


def same_error(error: str, fn) -> bool:
    """Whether ``fn()`` (a known mistake replayed on the probe's shapes) raises the error the
    candidate raised: names a mistake whose line is not the one that raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # x.T on a batch warns before it fails
            fn()
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return bool(first) and first in error
    return False


def transpose_all(error: str, name: str, fn) -> Fail | None:
    """Name ``x.T`` on a batch (it reverses *all* the dimensions) when ``fn()``, the product
    written with ``.T`` on the probe's shapes, raises the candidate's error."""
    if same_error(error, fn):
        return Fail(
            f"{name}.T reverses *all* the dimensions of a batched tensor, (B, T, d) -> "
            f"(d, T, B): transpose the last two only, {name}.transpose(-2, -1) (or {name}.mT)."
            "\n   " + error,
            "dot_T",
        )
    return None


# --------------------------------------------------------------------------- device


class DeviceProbeMixin:
    """Probes with ``runner="device"`` call ``candidate(*args, device=<the check's device>)``.

    Every exercise with this mixin also gets a last case that asks for ``device="meta"`` (a
    device with shapes and no data, present on every machine): a function that ignores
    ``device`` returns a CPU tensor there, which a CPU-only check could not see otherwise. The
    runner reports only the result's device type, shape and dtype (a meta tensor has no values).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "probes" in cls.__dict__:
            cls.probes = _with_meta_case(cls.__dict__["probes"])
        if "judge" in cls.__dict__:
            cls.judge = _judging_meta_case(cls.__dict__["judge"])

    def run_device(self, probe, candidate, device):
        return candidate(*probe.args, **probe.kwargs, device=device)

    def run_device_meta(self, probe, candidate, device):
        out = candidate(*probe.args, **probe.kwargs, device=torch.device("meta"))
        if not isinstance(out, torch.Tensor):
            return {"type": type(out).__name__}
        return {"device": out.device.type, "shape": list(out.shape), "dtype": str(out.dtype)}


def _with_meta_case(probes):
    def with_meta(self, gen) -> Iterator[Probe]:
        first = None
        for probe in probes(self, gen):
            first = first or (probe if probe.runner == "device" else None)
            yield probe
        if first is not None:
            yield Probe(
                f"{first.name}, device='meta'",
                args=first.args,
                kwargs=first.kwargs,
                runner="device_meta",
            )

    return with_meta


def _judging_meta_case(judge):
    def judge_with_meta(self, probe, out):
        if probe.runner != "device_meta":
            return judge(self, probe, out)
        if not isinstance(out, dict) or "device" not in out:
            raise Fail("with device='meta' the result is not a tensor.", "not_a_tensor")
        if out["device"] != "meta":
            raise Fail(
                f"asked for device='meta', the result is on {out['device']}: the `device` "
                "argument is ignored. Create the tensors on it (torch.ones(..., device=device)"
                " or torch.arange(T, device=device)), so the mask lands where the scores are.",
                "ignores_device",
            )

    return judge_with_meta


# --------------------------------------------------------------------------- size limits


class LargestTensor(TorchDispatchMode):
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


class SizeLimitMixin:
    """``runner="sized"``: call the candidate under :class:`LargestTensor`; returns {"out": ...,
    "largest": n}, for a contract that says "without a T x T matrix" (judge: too_large)."""

    def run_sized(self, probe, candidate, device):
        args = to_device(probe.args, device)
        with LargestTensor() as spy:
            out = candidate(*args, **probe.kwargs)
        return {"out": out, "largest": spy.largest}


def too_large(out: dict, limit: int, message: str, code: str) -> None:
    """Fail when a "sized" probe made a tensor of ``limit`` elements or more."""
    if isinstance(out.get("largest"), int) and out["largest"] >= limit:
        raise Fail(
            f"the result is right, but a tensor of {out['largest']} elements was made, " + message,
            code,
        )


# --------------------------------------------------------------------------- dropout

# nn.Dropout calls F.dropout; torch.dropout is the same operation under another name
DROPOUT_FUNCTIONS = ("torch.nn.functional.dropout", "torch.dropout")


#: (message, code) for a dropout whose p is not the `dropout` argument (the cases pass 0.5)
P_IGNORED = (
    "dropout does not use the `dropout` argument (this case passes 0.5): "
    "self.dropout = nn.Dropout(dropout).",
    "dropout_p_ignored",
)


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
            owner, attr = _resolve(dotted)
            saved.append((owner, attr, getattr(owner, attr)))
            setattr(owner, attr, dropout)
        yield calls
    finally:
        for owner, attr, original in reversed(saved):
            setattr(owner, attr, original)


#: the seed of the fixed masks of the training-mode cases of 06, 07, 09 (any fixed number)
DROPOUT_SEED = 20250611
#: the dropout probability of those cases
P_TRAIN = 0.3


def fixed_drops(p: float, skip=(), moved=()) -> Drops:
    """The float64 reference's dropout hook: the masks :func:`dropout_fixed` gives the learner's
    module (seed ``DROPOUT_SEED``), at every site not in ``skip``."""
    return Drops(lambda t: fixed_dropout(t, p, DROPOUT_SEED), skip, moved)


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


class TrainModeMixin:
    """``runner="train_mode"``: build the module, load ``state``, run ``forward`` in training
    mode under :func:`dropout_fixed` (seed ``kwargs["dropout_seed"]``), then in eval mode.
    Returns {"train": ..., "eval": ..., "dropout_calls": n}."""

    def run_train_mode(self, probe, candidate, device):
        module = candidate(**(probe.init or {}))
        if not isinstance(module, nn.Module):
            return module
        if probe.state is not None:
            load_state(module, probe.state)
        module.to(device)
        kwargs = dict(probe.kwargs)
        seed = kwargs.pop("dropout_seed")
        args, kwargs = to_device(probe.args, device), to_device(kwargs, device)
        train, calls = train_forward(module, args, kwargs, seed)
        with torch.no_grad():
            evald = module.eval()(*args, **kwargs)
        return {"train": train, "eval": evald, "dropout_calls": calls}


def train_mode_parts(out) -> tuple:
    """(train output, eval output, number of dropout calls) of a "train_mode" probe (judge)."""
    if not isinstance(out, dict) or set(out) != {"train", "eval", "dropout_calls"}:
        raise Fail("the module did not run in training mode (is it an nn.Module?).")
    return out["train"], out["eval"], out["dropout_calls"]


def judge_dropout(got, got_eval, calls: int, ref, mistakes, where: str, what: str = "the output"):
    """Judge a training-mode output against ``ref`` (the float64 reference with the fixed
    masks); name the mistake from ``mistakes`` ((variant, message, code) as in expect_close),
    else from what the eval-mode output and the dropout calls show."""
    if close(got, ref.to(got.dtype), 1e-4, 1e-4):
        return
    for variant, message, code in mistakes:
        try:
            v = variant()
        except Exception:  # a variant that does not apply to this case
            continue
        if v is not None and close(got, v.to(got.dtype), 1e-4, 1e-3):
            raise Fail(message, code)
    if close(got, got_eval, 1e-6, 1e-5):
        raise Fail(
            f"in training mode (dropout=0.5) {what} equals the eval-mode one: there is no "
            f"dropout. Apply nn.Dropout(dropout) {where}.",
            "no_dropout",
        )
    if calls == 0:
        raise Fail(
            f"in training mode {what} changes, but not through nn.Dropout or F.dropout (the "
            "check replaces them with fixed masks to compare): use nn.Dropout(dropout) "
            f"{where}.",
            "own_dropout",
        )
    raise Fail(describe_difference(got, ref, f"{what} in training mode (dropout belongs {where})"))
