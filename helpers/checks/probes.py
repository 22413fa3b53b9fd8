"""Probe pieces shared by several notebooks (judge side): switched-off built-ins, random masks,
named errors, the device-meta case, size limits, and the judging of training-mode cases (their
runners are run/modules.py's)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import torch
from torch.utils._pytree import tree_leaves

from .framework import Fail, Probe, close, describe_difference, rand_bool, randint
from .references import Drops
from .run.modules import DROPOUT_SEED, fixed_dropout

# the built-ins a from-scratch attention must not call (F.scaled_dot_product_attention is
# torch._C._nn.scaled_dot_product_attention under another name)
# the kernels behind them (run.forbid.ops_off: off at the dispatcher, however they are called);
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
#: autograd and its wrappers: switched off where the exercise is the backward pass autograd runs.
#: Reverse mode: every wrapper (torch.func.*, torch.autograd.functional.*) reaches
#: torch.autograd.grad or backward. Forward mode (dual numbers, one pass per input entry, gives
#: the same gradients): every route (forward_ad, torch.func.jvp, jacfwd) enters a dual level
#: through torch._C._enter_dual_level; the names a learner calls come first, for the message.
AUTOGRAD = (
    "torch.Tensor.backward",
    "torch.autograd.backward",
    "torch.autograd.grad",
    "torch.autograd.functional.vjp",
    "torch.autograd.functional.jacobian",
    "torch.func.vjp",
    "torch.func.grad",
    "torch.func.jacrev",
    "torch.func.jvp",
    "torch.func.jacfwd",
    "torch.autograd.forward_ad.dual_level",
    "torch.autograd.forward_ad.make_dual",
    "torch._C._enter_dual_level",
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
    """Probes with ``runner="device"`` call ``candidate(*args, device=<the check's device>)``
    (run/modules.py): the exercise writes ``cases(gen)`` and ``judge_value(probe, out)``.

    Its probes end with one more case that asks for ``device="meta"`` (a device with shapes and
    no data, present on every machine): a function that ignores ``device`` returns a CPU tensor
    there, which a CPU-only check could not see otherwise. The runner reports only the result's
    device type, shape and dtype (a meta tensor has no values).
    """

    def probes(self, gen) -> Iterator[Probe]:
        first = None
        for probe in self.cases(gen):
            first = first or (probe if probe.runner == "device" else None)
            yield probe
        if first is not None:
            yield Probe(
                f"{first.name}, device='meta'",
                args=first.args,
                kwargs=first.kwargs,
                runner="device_meta",
            )

    def judge(self, probe, out):
        if probe.runner != "device_meta":
            return self.judge_value(probe, out)
        if not isinstance(out, dict) or "device" not in out:
            raise Fail("with device='meta' the result is not a tensor.", "not_a_tensor")
        if out["device"] != "meta":
            raise Fail(
                f"asked for device='meta', the result is on {out['device']}: the `device` "
                "argument is ignored. Create the tensors on it (torch.ones(..., device=device)"
                " or torch.arange(T, device=device)), so the mask lands where the scores are.",
                "ignores_device",
            )


# --------------------------------------------------------------------------- size limits


def too_large(out: dict, limit: int, message: str, code: str) -> None:
    """Fail when a "sized" probe made a tensor of ``limit`` elements or more."""
    if isinstance(out.get("largest"), int) and out["largest"] >= limit:
        raise Fail(
            f"the result is right, but a tensor of {out['largest']} elements was made, " + message,
            code,
        )


# --------------------------------------------------------------------------- dropout

#: (message, code) for a dropout whose p is not the `dropout` argument (the cases pass 0.5)
P_IGNORED = (
    "dropout does not use the `dropout` argument (this case passes 0.5): "
    "self.dropout = nn.Dropout(dropout).",
    "dropout_p_ignored",
)


#: the dropout probability of those cases
P_TRAIN = 0.3


def fixed_drops(p: float, skip=(), moved=()) -> Drops:
    """The float64 reference's dropout hook: the masks :func:`dropout_fixed` gives the learner's
    module (seed ``DROPOUT_SEED``), at every site not in ``skip``."""
    return Drops(lambda t: fixed_dropout(t, p, DROPOUT_SEED), skip, moved)


def train_mode_parts(out) -> tuple:
    """(train output, eval output, number of dropout calls) of a "train_mode" probe (judge);
    Fail when the module built with dropout=0.0 still drops in training mode."""
    keys = {"train", "eval", "dropout_calls"}
    if not isinstance(out, dict) or not keys <= set(out) <= keys | {"train_at_zero"}:
        raise Fail("the module did not run in training mode (is it an nn.Module?).")
    zero, evald = tree_leaves(out.get("train_at_zero")), tree_leaves(out["eval"])
    if zero and not all(
        isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and close(a, b, 1e-6, 1e-5)
        for a, b in zip(zero, evald)
    ):
        raise Fail(
            "built with dropout=0.0, the module still changes its output in training mode: its "
            "dropout does not use the `dropout` argument (nn.Dropout() alone drops with p=0.5). "
            "Pass it on: self.dropout = nn.Dropout(dropout).",
            P_IGNORED[1],
        )
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
