"""07b.save_checkpoint: save a checkpoint (its check)."""

from __future__ import annotations

from ...framework import Exercise, register
from .checkpoints import (
    _step_fail,
    checkpoint_probes,
    judge_resume,
)

#: what the runner found wrong with the saved file -> the catalogue's code for it ("keys": which
#: keys are there tells, :func:`_keys_code`); the message's fields come from :func:`_fields`
PROBLEMS = {
    "no_file": "no_file",
    "unsafe": "pickled_objects",
    "not_a_dict": "not_a_dict",
    "model_error": "model_not_a_state_dict",
    "optimizer_error": "optimizer_not_a_state_dict",
}


def _keys_code(keys) -> str:
    if "optimizer" not in keys and "model" in keys:
        return "no_optimizer"
    if "step" not in keys and {"model", "optimizer"} <= set(keys):
        return "step_lost"
    return "wrong_keys"


def _fields(out: dict) -> dict:
    kinds = out.get("kinds")
    held = (
        "{" + ", ".join(f"{k!r}: {v}" for k, v in kinds.items()) + "}"
        if isinstance(kinds, dict)
        else f"a {kinds}"
        if kinds
        else "something else"
    )
    error = str(out.get("error", "")).replace("your code raised", "it raised")
    found = ", ".join(out.get("found", ())) or "nothing"
    return {"found": found, "held": held, "kind": out.get("kind"), "keys": out.get("keys"),
            "error": error}  # fmt: skip


@register
class SaveCheckpointCheck(Exercise):
    id = "07b.save_checkpoint"
    modes = {"model": "kept"}
    title = "save a checkpoint"
    points = 1.0
    errors = (
        (
            ("pickle",),
            "the model or optimizer object itself could not be pickled: save their "
            "state_dict()s, plain tensors and numbers by name, {'model': model.state_dict(), "
            "'optimizer': optimizer.state_dict(), 'step': step}.",
            "pickled_objects",
        ),
    )

    def probes(self, gen):
        return checkpoint_probes(gen, "save")

    def judge(self, probe, out):
        at = probe.kwargs["save_at"]
        problem = out.get("problem")
        if problem:
            code = _keys_code(out["keys"]) if problem == "keys" else PROBLEMS[problem]
            raise self.fail(code, **_fields(out))
        step = out["step"]
        if type(step) is not int or step != at:
            raise _step_fail(step, at, f"save the `step` you are given ({at}), an int.")
        judge_resume(
            probe,
            out,
            {
                "model": "save model.state_dict() as it is when save_checkpoint is called.",
                "model_code": "model_not_saved",
                "optimizer": "Save optimizer.state_dict() under 'optimizer'.",
                "optimizer_code": "optimizer_state_lost",
            },
        )
