"""The state of a module as built: the numbers it keeps (``eps``, ``d_head``, ``num_patches``, in
the module and its submodules) equal the reference's where both keep one under the same name,
and every key of the reference's ``state_dict()`` is in the learner's too (a buffer registered
with ``persistent=False`` is not saved with the model, and a checkpoint of the reference does not
load into it)."""

from __future__ import annotations

import math

from .edits import source
from .framework import Exercise, Fail, Probe


def _args(probe: Probe) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in (probe.init or {}).items()) or "no arguments"


def judge(ex: Exercise, probe: Probe, info) -> Fail | None:
    """None when the learner's ``module_info`` lists every ``state_dict`` key of the reference's,
    and its modules' numeric attributes that the reference's have too hold the same values
    (``norm1.eps``, ``num_patches``; or there is no reference to run)."""
    ref = source.reference_outcome(ex, probe)
    if ref is None or not isinstance(ref.value, dict) or not isinstance(info, dict):
        return None
    attributes = {**(ref.value.get("attributes") or {}), **(ref.value.get("inner") or {})}
    found = {**(info.get("attributes") or {}), **(info.get("inner") or {})}
    for name, value in attributes.items():
        if name not in found or type(value) not in (int, float):
            continue
        if not (type(found[name]) in (int, float) and math.isclose(found[name], value)):
            if name.rsplit(".", 1)[-1] == "p":  # nn.Dropout's probability
                given = (probe.init or {}).get("dropout", 0.0)
                return Fail(
                    f"`{name}` is {found[name]!r} in a module built with dropout={given!r}"
                    + ("" if "dropout" in (probe.init or {}) else " (the default)")
                    + ": the `dropout` argument does not reach this nn.Dropout (not passed "
                    "on, or another argument passed in its place; nn.Dropout() alone drops with "
                    "p=0.5). Build it with nn.Dropout(dropout), and pass dropout= on by name.",
                    "dropout_p_ignored",
                )
            return Fail(
                f"`{name}` is {found[name]!r}, the reference's is {value!r} (built with the "
                f"same arguments, {_args(probe)}): is a constructor argument ignored, or a "
                "default changed?",
                "attribute_differs",
            )
    mine = set(info.get("state_dict") or ())
    missing = [k for k in ref.value.get("state_dict") or () if k not in mine]
    if not missing:
        return None
    held = [k for k in missing if k in info.get("buffers", {})]
    if held:
        return Fail(
            f"the buffer `{held[0]}` is not in state_dict(), so it is not saved with the model "
            "and a checkpoint's copy of it is not loaded: register it with "
            f"self.register_buffer({held[0].rsplit('.', 1)[-1]!r}, tensor) (persistent, the "
            "default; persistent=False leaves it out).",
            "buffer_not_saved",
        )
    return Fail(
        f"state_dict() has no {', '.join(missing[:4])}: the contract saves them with the "
        "model (a parameter or a persistent buffer under that name).",
        "state_dict_keys",
    )
