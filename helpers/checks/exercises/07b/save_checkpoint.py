"""07b.save_checkpoint: save a checkpoint (its check)."""

from __future__ import annotations

from ...framework import Exercise, Fail, register
from .checkpoints import (
    _step_fail,
    checkpoint_probes,
    judge_resume,
)

WHOLE_STATE = {
    "model": ", every parameter and buffer by name (parameters() and named_parameters() leave "
    "out the buffers, such as a batch norm's running statistics)",
    "optimizer": "",
}


@register
class SaveCheckpointCheck(Exercise):
    id = "07b.save_checkpoint"
    modes = {"model": "kept"}
    title = "save a checkpoint"
    points = 1.0

    def probes(self, gen):
        return checkpoint_probes(gen, "save")

    def explain_error(self, probe, error):
        if "pickle" in error.lower():
            return Fail(
                "the model or optimizer object itself could not be pickled: save their "
                "state_dict()s, plain tensors and numbers by name, {'model': "
                "model.state_dict(), 'optimizer': optimizer.state_dict(), 'step': step}.\n   "
                + error,
                "pickled_objects",
            )
        return None

    def judge(self, probe, out):
        at = probe.kwargs["save_at"]
        problem = out.get("problem")
        if problem == "no_file":
            found = ", ".join(out["found"]) or "nothing"
            raise Fail(
                f"nothing was written at `path` (the folder holds {found}): "
                "torch.save(checkpoint, path), with the path you are given.",
                "no_file",
            )
        if problem == "unsafe":
            kinds = out["kinds"]
            held = (
                "{" + ", ".join(f"{k!r}: {v}" for k, v in kinds.items()) + "}"
                if isinstance(kinds, dict)
                else f"a {kinds}"
                if kinds
                else "something else"
            )
            raise Fail(
                f"torch.load(path, weights_only=True) refuses the file, which holds {held}: "
                "objects were pickled (the model, the optimizer), which only weights_only=False "
                "reads, and it runs whatever code the file names. Save the state_dict()s: "
                "{'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'step': "
                "step}.",
                "pickled_objects",
            )
        if problem == "not_a_dict":
            raise Fail(
                f"the file holds a {out['kind']}: save one dict, {{'model': model.state_dict(), "
                "'optimizer': optimizer.state_dict(), 'step': step}.",
                "not_a_dict",
            )
        if problem == "keys":
            keys = out["keys"]
            if "optimizer" not in keys and "model" in keys:
                raise Fail(
                    f"the checkpoint has no 'optimizer' (its keys: {keys}): without AdamW's "
                    "state (two running averages per parameter, its step count) the resumed run "
                    "differs from its second step on. Save optimizer.state_dict() under "
                    "'optimizer'.",
                    "no_optimizer",
                )
            if "step" not in keys and {"model", "optimizer"} <= set(keys):
                raise Fail(
                    f"the checkpoint has no 'step' (its keys: {keys}): the step fixes the "
                    "learning rate and the batches of the resumed run. Save it under 'step'.",
                    "step_lost",
                )
            raise Fail(
                f"the checkpoint's keys are {keys}: the course's load reads 'model', "
                "'optimizer' and 'step' (model.state_dict(), optimizer.state_dict(), the step).",
                "wrong_keys",
            )
        if problem in ("model_error", "optimizer_error"):
            name = problem.split("_")[0]
            error = out["error"].replace("your code raised", "it raised")
            raise Fail(
                f"{name}.load_state_dict(checkpoint[{name!r}]) fails on what was saved: save "
                f"{name}.state_dict() there{WHOLE_STATE[name]}.\n   {error}",
                f"{name}_not_a_state_dict",
            )
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
