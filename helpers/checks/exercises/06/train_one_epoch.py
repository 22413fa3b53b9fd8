"""06.train_one_epoch: one epoch of training (its check)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...framework import Exercise, Fail, Probe, randint, randn, register
from ...run.loops import TinyNet, make_optimizer, tiny_net


def reference_loop(spec: dict, batches: list, variant: str = "right") -> tuple[float, list]:
    """The loop the exercise asks for, or a known wrong one; returns (value, parameters after).

    A step before backward needs no variant of its own: after zero_grad there is no gradient,
    so the step does nothing ("no_step"); without zero_grad the step changes weights that the
    pending backward still needs, and PyTorch raises (see run/loops.py, ``run_training_loop``).
    """
    model = tiny_net(spec).train()
    opt = make_optimizer(spec, model.parameters())
    losses = []
    for x, y in batches:
        if variant != "no_zero_grad":
            opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        if variant == "no_step":
            loss.backward()
        else:
            loss.backward()
            opt.step()
        losses.append(loss.item())
    mean = sum(losses) / len(losses)
    value = {"sum": sum(losses), "last": losses[-1], "first": losses[0]}.get(variant, mean)
    return value, [p.detach().clone() for p in model.parameters()]


@register
class TrainOneEpochCheck(Exercise):
    id = "06.train_one_epoch"
    modes = {"model": "train"}  # "put the model in training mode"
    title = "one epoch of training"
    points = 2.0

    def probes(self, gen):
        def spec(optimizer, lr, **kw):
            sizes = (4, 6, 3)
            net = TinyNet(*sizes)
            state = {
                "linear1.weight": randn(6, 4, dtype=torch.float64, generator=gen) / 2,
                "linear1.bias": 0.3 * randn(6, dtype=torch.float64, generator=gen),
                "linear2.weight": randn(3, 6, dtype=torch.float64, generator=gen) / 2,
                "linear2.bias": 0.3 * randn(3, dtype=torch.float64, generator=gen),
            }
            net.load_state_dict(state)
            return {"sizes": sizes, "state": state, "optimizer": optimizer, "lr": lr, **kw}

        def batches(n, B=5):
            return [
                (randn(B, 4, dtype=torch.float64, generator=gen), randint(gen, 0, 3, B))
                for _ in range(n)
            ]

        uneven = "SGD(lr=0.4), uneven batches of 7, 2 and 5 (the mean is over batches, not samples)"
        for name, opt, data in (
            ("SGD(lr=0.5), 4 batches of 5", spec("sgd", 0.5), batches(4)),
            ("SGD(lr=0.3, momentum=0.9), 3 batches, given as a generator (count them as you go)",
             spec("sgd", 0.3, momentum=0.9), batches(3)),
            ("Adam(lr=0.05), 5 batches of 8", spec("adam", 0.05), batches(5, 8)),
            (uneven, spec("sgd", 0.4), [batches(1, B)[0] for B in (7, 2, 5)]),
            ("SGD(lr=0.2), a single batch", spec("sgd", 0.2), batches(1)),
        ):  # fmt: skip
            kwargs = {"spec": opt, "batches": data, "generator": "generator" in name}
            yield Probe(name, runner="training_loop", kwargs=kwargs, cpu_only=True)

    def judge(self, probe, out):
        spec, batches = probe.kwargs["spec"], probe.kwargs["batches"]
        n = len(batches)
        if not isinstance(out, dict) or "value" not in out:
            raise Fail("unexpected result from the training loop.")
        for flag, (message, code) in LOOP_ERRORS.items():
            if out.get(flag):
                raise Fail(message, code)
        if out["loss_calls"] != n:
            raise Fail(
                f"loss_fn was called {out['loss_calls']} times for {n} batches: compute the "
                "loss once per batch, loss = loss_fn(model(inputs), targets).",
                "loss_calls_per_batch",
            )
        ref_value, ref_params = reference_loop(spec, batches)

        def same(refs):
            pairs = zip(out["parameters"], refs)
            return all(torch.allclose(p.double(), r, atol=1e-7, rtol=1e-6) for p, r in pairs)

        if not same(ref_params):
            for variant in ("no_zero_grad", "no_step"):
                if same(reference_loop(spec, batches, variant)[1]):
                    raise Fail(*WRONG_LOOPS[variant])
            raise Fail(*WRONG_LOOPS["wrong_update"])
        if not out.get("train_mode", True):
            raise Fail(*WRONG_LOOPS["eval_mode"])
        value = out["value"]
        kind = "tensor" if isinstance(value, torch.Tensor) else "none" if value is None else ""
        if kind or not isinstance(value, (int, float)):
            message, code = RETURNS[kind or "other"]
            raise Fail(message.format(type=type(value).__name__), code)
        if math.isclose(value, ref_value, rel_tol=1e-6, abs_tol=1e-9):
            return
        for variant in ("last", "sum", "first"):
            v, _ = reference_loop(spec, batches, variant)
            if n > 1 and math.isclose(value, v, rel_tol=1e-6, abs_tol=1e-9):
                raise Fail(RETURNS[variant][0], RETURNS[variant][1])
        raise Fail(
            f"the returned value {value:.6g} is not the mean loss over the batches "
            f"({ref_value:.6g}): average each batch's loss.item(), taken before its step.",
            "not_the_mean_loss",
        )


# what the runner reports -> (message, code)
LOOP_ERRORS = {
    "args_swapped": (
        "loss_fn got the targets (class ids) as its first argument: the model's output comes "
        "first, loss = loss_fn(model(inputs), targets), as in F.cross_entropy.",
        "loss_fn_args_swapped",
    ),
    "no_graph": (
        "loss.backward() found no graph to go back through: the loss was computed without "
        "gradients (under torch.no_grad(), or from a .detach()ed output). Compute loss = "
        "loss_fn(model(inputs), targets) with gradients on and call loss.backward() on it.",
        "loss_without_graph",
    ),
    "inplace_error": (
        "optimizer.step() runs before loss.backward(): the step changes weights that the "
        "backward pass still needs (PyTorch's 'modified by an inplace operation' error). Order: "
        "zero_grad, forward, backward, step.",
        "step_before_backward",
    ),
}


# the parameters after the epoch -> (message, code)
WRONG_LOOPS = {
    "no_zero_grad": (
        "the gradients are never reset: call optimizer.zero_grad() for every batch "
        "(loss.backward() adds to .grad, so they pile up).",
        "no_zero_grad",
    ),
    "no_step": (
        "the parameters did not change: every batch needs loss.backward(), then "
        "optimizer.step(); without one of them nothing moves. A step before backward, or a "
        "zero_grad between backward and step, finds no gradient to use. Order: zero_grad, "
        "forward, backward, step.",
        "no_step",
    ),
    "wrong_update": (
        "the parameters after the epoch differ from one optimizer step per batch (zero_grad, "
        "loss = loss_fn(model(inputs), targets), backward, step).",
        "wrong_update",
    ),
    "eval_mode": (
        "the model was in eval mode during training: call model.train() at the start (dropout "
        "and similar layers behave differently in eval mode).",
        "eval_mode",
    ),
}


# the returned value -> (message, code)
RETURNS = {
    "tensor": (
        "the returned loss is a tensor: return a Python float, add up loss.item() (a sum of "
        "loss tensors also keeps every batch's graph alive).",
        "returns_tensor",
    ),
    "none": (
        "train_one_epoch returned None: return the mean loss (did you forget `return`?).",
        "returns_none",
    ),
    "other": ("the returned value should be a float, got {type}.", "returns_not_a_float"),
    "last": (
        "the returned value is the last batch's loss: return the mean over all batches.",
        "returns_last_loss",
    ),
    "sum": (
        "the returned value is the sum of the losses: divide by the number of batches.",
        "returns_sum_loss",
    ),
    "first": (
        "the returned value is the first batch's loss: return the mean over all batches.",
        "returns_first_loss",
    ),
}
