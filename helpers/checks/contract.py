"""The module contract beyond the output, opted into by an exercise as data (framework.Exercise):

- ``modes``: the train/eval mode a method (``attention_maps``) or a function handed a model
  (``greedy_decode``, ``load_checkpoint``, ``train_one_epoch``) leaves it in: "kept" (as it
  found it, from either mode) or "train". A probe of the runner "mode" (run/contract.py) starts
  the module once in each mode; said before the forward cases, whose outputs a mode left
  behind can change (a batch norm in eval mode gives another loss).
- ``returns``: the Python type of what the learner's code returns where the text states it (a
  float is a float, not a 0-d tensor), read before the exercise's judge turns it into a number.
- the gradients of every input and parameter (backward.py: the last probe).

checks/__init__.py's ``all_probes`` is the one list of cases the inline check and the grader draw
alike (the mode probes of :func:`mode_probes` first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import torch
from torch import nn

from .framework import Exercise, Fail, Probe

#: the runners that hand the learner's function a model (run/loops.py, run/craft.py)
MODEL_RUNNERS = ("decode", "training_loop", "checkpoint")


def mode_probes(ex: Exercise, cases: Sequence[Probe]) -> list[Probe]:
    found = []
    for what in ex.modes:
        for probe in cases:
            if probe.info.get("method") == what:
                runner = "mode"
            elif probe.runner in MODEL_RUNNERS or (
                probe.runner == "call" and any(isinstance(a, nn.Module) for a in probe.args)
            ):
                runner = f"mode:{probe.runner}"
            else:
                continue
            found.append(dataclasses.replace(
                probe, name=f"the mode of {what} before and after the call, {probe.name}",
                runner=runner, info={**probe.info, "contract": what},
            ))  # fmt: skip
            break
    return found


def function_name(ex: Exercise) -> str:
    return ex.id.split(".", 1)[1]


MODE_WORDS = {"train": "training", "eval": "eval", "mixed": "a mix of training and eval"}


def judge_modes(ex: Exercise, probe: Probe, value) -> Fail | None:
    """None when every start came back in the mode the exercise states."""
    if not isinstance(value, dict) or "modes" not in value:
        return None  # "skipped": the forward cases say what went wrong
    what = probe.info.get("contract", "")
    rule = ex.modes.get(what, "kept")
    for seen in value["modes"]:
        start, after, name = seen["start"], seen["after"], seen["what"]
        want = start if rule == "kept" else rule
        if after == want:
            continue
        code_after = after
        start, after = MODE_WORDS[start], MODE_WORDS[after]
        if probe.runner == "mode":  # a method: the module is self
            who, fix = f"{name} leaves the module", "was = self.training; self.eval(); ...; " \
                "self.train(was)"  # fmt: skip
        else:
            who = f"`{function_name(ex)}` leaves {name}"
            fix = f"was = {name.strip('`')}.training; ...; {name.strip('`')}.train(was)"
        if rule == "train":
            return Fail(
                f"{who} in {after} mode after the call (it was in {start} mode): the model it "
                f"trains must stay in training mode, {name.strip('`')}.train() at the start and "
                "no .eval() at the end (the caller evaluates when it wants to).",
                f"leaves_{code_after}_mode",
            )
        if start == "train":
            return Fail(
                f"{who} in {after} mode: it was in training mode before the call, and a caller "
                "that goes on training would train with dropout off (and a batch norm's running "
                f"statistics frozen). Give it back in the mode you found it: {fix}.",
                "leaves_eval_mode" if code_after == "eval" else "mode_changed",
            )
        return Fail(
            f"{who} in {after} mode, though it was in eval mode before the call (a "
            ".train() at the end switches every caller to training mode, dropout on): give it "
            f"back in the mode you found it, {fix}.",
            "forces_train_mode" if code_after == "train" else "mode_changed",
        )
    return None


TYPE_WORDS = {float: "a float", int: "an int", str: "a str", bool: "a bool"}


def judge_returns(ex: Exercise, probe: Probe, value) -> Fail | None:
    """None when what the learner's code returned has the type the text states."""
    for key, types in ex.returns.items():
        if key:
            if not isinstance(value, dict) or key not in value:
                continue
            got, what = value[key], f"the {key} returned"
        else:
            got, what = value, "the value returned"
        if got is None or isinstance(got, types) and not isinstance(got, bool):
            continue  # None: the exercise's own judge says "did you forget `return`?"
        if isinstance(got, dict):
            continue  # a dict (the whole checkpoint, say): the exercise's own judge says what
        if float in types and type(got) is int:
            continue  # an int is a number where a float is asked (PEP 484's numeric tower)
        want = " or ".join(TYPE_WORDS.get(t, t.__name__) for t in types)
        if isinstance(got, torch.Tensor):
            kind = f"a {got.dim()}-d torch.Tensor" if got.dim() else "a 0-d torch.Tensor"
            fix = (
                f"a Python number, not a tensor: {want.split()[-1]}(t) or t.item() turns a "
                "one-element tensor into one (or compute it with the math module: math.cos, "
                "math.pi)"
            )
        else:
            kind = TYPE_WORDS.get(type(got), type(got).__name__)
            fix = f"{want}, as the text says"
        return Fail(
            f"{what} is {kind}, where the exercise states {want}: return {fix}. A caller that "
            "formats, compares or stores it (an optimizer's lr, a step counter) expects that "
            "type.",
            f"returns_not_{want.split()[-1]}",
        )
    return None
