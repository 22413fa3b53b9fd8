"""07b.load_checkpoint: load a checkpoint and resume (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, register
from .checkpoints import (
    _step_fail,
    checkpoint_probes,
    judge_resume,
)

LOAD_ERRORS = (  # (words of the error, message, code)
    (
        ('"state", "param_groups"', "Unexpected key(s)"),
        "model.load_state_dict got the optimizer's state (its keys are 'state' and "
        "'param_groups'): the keys are swapped. The model takes checkpoint['model'], the optimizer "
        "checkpoint['optimizer'].",
        "wrong_state",
    ),
    (
        ('"model", "optimizer"',),
        "model.load_state_dict got the whole checkpoint (keys 'model', 'optimizer', 'step'): pass "
        "it checkpoint['model'], and the optimizer checkpoint['optimizer'].",
        "whole_checkpoint",
    ),
    (
        ("KeyError: 'param_groups'",),
        "optimizer.load_state_dict did not get the optimizer's state (a dict with 'state' and "
        "'param_groups'): pass it checkpoint['optimizer'], not the whole checkpoint or the "
        "model's state.",
        "whole_checkpoint",
    ),
)


@register
class LoadCheckpointCheck(Exercise):
    id = "07b.load_checkpoint"
    modes = {"model": "kept"}
    returns = {"step": (int,)}  # "-> int"
    title = "load a checkpoint and resume"
    points = 3.0
    errors = LOAD_ERRORS

    def probes(self, gen):
        return checkpoint_probes(gen, "load")

    def judge(self, probe, out):
        at = probe.kwargs["save_at"]
        step = out["step"]
        if isinstance(step, torch.Tensor) and step.numel() == 1 and not step.is_floating_point():
            step = int(step)
        if type(step) is not int or step != at:
            raise _step_fail(step, at, "return checkpoint['step'], where the resumed run starts.")
        judge_resume(
            probe,
            out,
            {
                "model": "load the saved weights into the model you are given, "
                "model.load_state_dict(checkpoint['model']) (a model built inside the function "
                "is not the caller's).",
                "model_code": "model_not_loaded",
                "buffers": "Load the whole state, model.load_state_dict(checkpoint['model']), "
                "not the parameters one by one.",
                "optimizer": "Load it into the optimizer you are given, "
                "optimizer.load_state_dict(checkpoint['optimizer']).",
                "optimizer_code": "optimizer_not_loaded",
            },
        )
