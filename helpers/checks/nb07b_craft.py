"""Notebook 07b, part 3: training craft, gradient clipping and a checkpoint that resumes to the same
losses; and the notebook's conceptual questions.

The learner's functions get what a training loop hands them (run/craft.py): parameters with
gradients, or a model and its AdamW. A checkpoint is judged by its round trip: the learner's save
read by the course's load, or the course's save read by the learner's load, and the run resumed
from it must give the losses of the run that went on, to the last bit (float64, on the CPU).
"""

from __future__ import annotations

import math

import torch

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_tensor,
    named,
    randn,
    register,
)
from .nb07b_reference import clip64
from .questions import Question
from .run.craft import adamw, tiny_model, train_step

# --------------------------------------------------------------------------- gradient clipping

CLIP_MISTAKES = {
    "per_parameter": "each gradient is clipped by its own norm: the norm is global, one number "
    "for all the gradients together (the root of the sum of every gradient's squares), and "
    "when it exceeds max_norm every gradient is scaled by the same max_norm / (total + 1e-6), "
    "which keeps the direction of the whole step.",
    "scales_up": "the gradients are scaled though their norm is below max_norm: small gradients "
    "grew to max_norm. Scale only when total > max_norm; below it, leave them as they are.",
    "inverted": "the gradients are scaled by total / max_norm, which makes a large gradient "
    "larger: the factor is max_norm / (total + 1e-6).",
    "multiplied": "the gradients are scaled by max_norm * total, which makes a large gradient "
    "larger: divide, the factor is max_norm / (total + 1e-6).",
    # max_norm = 1: the two above give the same gradients, so neither is named
    "scaled_by_total": "the gradients are scaled by total (+ 1e-6), which makes a large "
    "gradient larger: with max_norm = 1 here, total / max_norm gives this, and max_norm * total "
    "too. The factor is max_norm / (total + 1e-6).",
    "not_written_back": "the norm is above max_norm but the gradients are unchanged: nothing "
    "scaled p.grad (a scaling left out, a factor of 1, or a local `g = g * coef`, which makes "
    "a new tensor and leaves p.grad as it was). Scale p.grad itself, p.grad.mul_(coef) (or "
    "p.grad = p.grad * coef).",
    "generator_consumed": "with `parameters` a generator, as model.parameters() is, {what}: a "
    "generator can be read once, and the second loop over it finds nothing. Make it a list "
    "first, parameters = list(parameters).",
    "norm_after": "the returned norm is the one after clipping (max_norm when it clipped): "
    "return the norm before clipping, which the training loop records to see how often "
    "clipping acts.",
    "sum_of_norms": "the returned norm is the sum of the gradients' norms: the global norm is "
    "the root of the sum of squares, sqrt(sum over p of (p.grad ** 2).sum()), the norm of all "
    "the gradients as one long vector.",
    "no_sqrt": "the returned norm is the sum of squares, without its square root.",
}


def _clip_case(gen, norms, shapes, dtype=torch.float32, none_at=()):
    """Parameter values and gradients of the given norms (None at ``none_at``)."""
    values, grads = [], []
    for i, (norm, shape) in enumerate(zip(norms, shapes)):
        values.append(randn(*shape, generator=gen, dtype=dtype))
        g = randn(*shape, generator=gen, dtype=torch.float64)
        grads.append(None if i in none_at else (g * norm / g.norm()).to(dtype))
    return values, grads


@register
class ClipGradNormCheck(Exercise):
    id = "07b.clip_grad_norm"
    title = "gradient clipping by the global norm"
    points = 2.0
    forbid = tuple(
        f"torch.nn.utils.{name}"
        for name in (
            "clip_grad_norm_",
            "clip_grad_norm",
            "get_total_norm",
            "clip_grads_with_norm_",
            "clip_grad.clip_grad_norm_",
            "clip_grad.clip_grad_norm",
        )  # fmt: skip
    )

    def probes(self, gen):
        shapes = [(4, 3), (3,), (2, 2)]
        cases = [
            # max_norm = 1 would make total / max_norm and max_norm * total the same factor
            ("three gradients of norms 3, 0.5, 0.2, max_norm = 2", [3.0, 0.5, 0.2], shapes, 2.0,
             {}, {}),
            ("gradients of norms 0.3, 0.2, 0.1 (total below max_norm = 1)", [0.3, 0.2, 0.1],
             shapes, 1.0, {}, {}),
            ("the second parameter has no gradient (grad None), max_norm = 0.5", [2.0, 1.0, 1.0],
             shapes, 0.5, {"none_at": (1,)}, {}),
            ("parameters given as a generator, as model.parameters() is, max_norm = 1",
             [2.0, 1.5, 0.5], shapes, 1.0, {}, {"generator": True}),
            ("float64 gradients of norms 1, 4, max_norm = 2", [1.0, 4.0], [(5,), (2, 3)], 2.0,
             {"dtype": torch.float64}, {}),
            ("one gradient of norm 2, max_norm = 1.5", [2.0], [(6,)], 1.5, {}, {}),
        ]  # fmt: skip
        for name, norms, shp, max_norm, opts, kwargs in cases:
            values, grads = _clip_case(gen, norms, shp, **opts)
            yield Probe(name, args=(values, grads, max_norm), kwargs=kwargs, runner="clip_grad")

    def explain_error(self, probe, error):
        if "NoneType" in error:
            return Fail(
                "a parameter without a gradient (p.grad is None: it took no part in the loss, or "
                "it is frozen) made your code fail: skip it, `if p.grad is None: continue` (or "
                "keep [p for p in parameters if p.grad is not None]).\n   " + error,
                "none_grad",
            )
        return None

    def judge(self, probe, out):
        values, grads, max_norm = probe.args
        generator = probe.kwargs.get("generator", False)
        if any(not torch.equal(a, b) for a, b in zip(out["params"], values)):
            raise Fail(
                "the parameters themselves changed: clipping scales the gradients (p.grad), "
                "never the weights (p or p.data).",
                "scaled_parameters",
            )
        for i, (before, after) in enumerate(zip(grads, out["grads"])):
            if before is None and after is not None:
                raise Fail(
                    f"parameter {i} had no gradient (None) and has one now: leave it None (the "
                    "optimizer skips a parameter whose grad is None; a zero gradient would still "
                    "move it, through AdamW's momentum and weight decay).",
                    "none_filled",
                )
        value = out["value"]
        if isinstance(value, float):
            raise Fail(
                "the norm is a Python float: return it as a tensor (0-d, on the gradients' "
                "device), as torch.nn.utils.clip_grad_norm_ does; .item() would make every "
                "step wait for the GPU.",
                "not_a_tensor",
            )
        value = expect_tensor(value, "the returned norm")
        if value.numel() != 1:
            raise Fail(
                f"the returned norm has {value.numel()} elements: return one number, the norm of "
                "all the gradients together (a 0-d tensor).",
                "wrong_shape",
            )
        total, ref = clip64(grads, max_norm)
        after = min(total, torch.tensor(max_norm, dtype=torch.float64))
        norms = [g.double().norm() for g in grads if g is not None]
        variants = {"norm_after": after, "sum_of_norms": sum(norms), "no_sqrt": total**2}
        if generator:
            variants = {"generator_consumed": torch.zeros((), dtype=torch.float64), **variants}
        fields = {"what": "the norm is 0 (the gradients were read by an earlier loop)"}
        expect_close(  # one number: no factor or offset claimed (properties.diagnose)
            value.reshape(()),
            total,
            "the returned norm",
            mistakes=named(CLIP_MISTAKES, fields, **variants),
        )
        dtype = next(g.dtype for g in grads if g is not None)
        got = torch.cat([g.flatten() for g in out["grads"] if g is not None]).to(dtype)

        def flat(variant: str = "right") -> torch.Tensor:
            return torch.cat([g.flatten() for g in clip64(grads, max_norm, variant=variant)[1]])

        variants = {v: (lambda v=v: flat(v)) for v in ("per_parameter", "scales_up")}
        unchanged = torch.cat([g.double().flatten() for g in grads if g is not None])
        if total > max_norm:
            # the factor upside down, or max_norm times total: the same when max_norm = 1
            flipped = {
                "inverted": lambda: flat("inverted"),
                "multiplied": lambda: unchanged * max_norm * (total + 1e-6),
            }
            variants |= {"scaled_by_total": flat("inverted")} if max_norm == 1.0 else flipped
            # unchanged gradients: not scaled, or scaled where no one sees it
            variants["generator_consumed" if generator else "not_written_back"] = unchanged
        fields = {"what": "the gradients were not scaled (the loop that scales them found none)"}
        expect_close(
            got,
            flat(),
            "the gradients after clipping",
            mistakes=named(CLIP_MISTAKES, fields, **variants),
        )


# --------------------------------------------------------------------------- checkpoints

SAVE_AT, AFTER = 3, 3  # steps before the checkpoint, steps after it
CHECKPOINT_CASES = [  # (name, sizes, steps before, lr, weight decay)
    ("a 5-7-3 network with a batch norm, AdamW (lr 0.05, weight decay 0.1), saved before step 3",
     (5, 7, 3), 3, 0.05, 0.1),
    ("a 4-6-5 network with a batch norm, AdamW (lr 0.02, weight decay 0.01), saved before step 1",
     (4, 6, 5), 1, 0.02, 0.01),
]  # fmt: skip


def _net_state(gen, sizes) -> dict:
    """Random weights of run/craft.py's tiny model, and its batch norm's buffers as they start."""
    d_in, d_hidden, d_out = sizes
    shapes = {"0.weight": (d_hidden, d_in), "0.bias": (d_hidden,), "1.weight": (d_hidden,),
              "1.bias": (d_hidden,), "3.weight": (d_out, d_hidden), "3.bias": (d_out,)}  # fmt: skip
    state = {k: randn(*s, generator=gen, dtype=torch.float64) * 0.5 for k, s in shapes.items()}
    state["1.weight"] = state["1.weight"] + 1
    state["1.running_mean"] = torch.zeros(d_hidden, dtype=torch.float64)
    state["1.running_var"] = torch.ones(d_hidden, dtype=torch.float64)
    state["1.num_batches_tracked"] = torch.tensor(0)
    return state


def checkpoint_probes(gen, which: str):
    for name, sizes, at, lr, decay in CHECKPOINT_CASES:
        batches = [
            (randn(8, sizes[0], generator=gen, dtype=torch.float64),
             torch.randint(0, sizes[2], (8,), generator=gen))
            for _ in range(at + AFTER)
        ]  # fmt: skip
        kwargs = {"which": which, "sizes": sizes, "state": _net_state(gen, sizes),
                  "fresh": _net_state(gen, sizes), "batches": batches, "lr": lr,
                  "weight_decay": decay, "save_at": at}  # fmt: skip
        yield Probe(name, kwargs=kwargs, runner="checkpoint", cpu_only=True)


def straight_run(kw: dict) -> list[float]:
    """The losses of the steps after the checkpoint, of a run never stopped (the judge's own)."""
    model = tiny_model(kw["sizes"], kw["state"])
    optimizer = adamw(model, kw["lr"], kw["weight_decay"])
    return [train_step(model, optimizer, x, y) for x, y in kw["batches"]][kw["save_at"] :]


def rounded_first_loss(kw: dict, dtype: torch.dtype) -> float:
    """The first loss after loading when the saved model's floating tensors were cast to
    ``dtype`` (and copied back into the float64 model by load_state_dict)."""
    model = tiny_model(kw["sizes"], kw["state"])
    optimizer = adamw(model, kw["lr"], kw["weight_decay"])
    for x, y in kw["batches"][: kw["save_at"]]:
        train_step(model, optimizer, x, y)
    state = {k: v.to(dtype) if v.is_floating_point() else v for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    x, y = kw["batches"][kw["save_at"]]
    with torch.no_grad():
        return torch.nn.functional.cross_entropy(model(x), y).item()


def rounded_to(kw: dict, first: float) -> torch.dtype | None:
    """The lower precision the model's state went through, if the first loss after loading is
    the one a model rounded to it gives."""
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        if math.isclose(rounded_first_loss(kw, dtype), first, rel_tol=1e-12):
            return dtype
    return None


def _losses(values: list[float], digits: int = 6) -> str:
    return "[" + ", ".join(f"{v:.{digits}f}" for v in values) + "]"


RESUME = {
    "model": "the first loss after loading ({got:.6f}) is not the saved model's ({want:.6f})"
    "{fresh}: {fix}",
    "optimizer": "the first loss after loading is right, the next ones differ ({got} instead "
    "of {want}): the model came back but AdamW's state did not (its two running averages and "
    "its step count per parameter). {fix}",
    "bits": "the losses after loading are close to the run that went on but not equal to the "
    "last bit ({got} instead of {want}): a resumed run on the same machine repeats the same "
    "operations on the same numbers. Keep the tensors as they are (no .float(), no rounding).",
}


def judge_resume(probe, out, fixes: dict) -> None:
    """The step read back, then the losses of the resumed run against the run that went on."""
    kw = probe.kwargs
    want = straight_run(kw)
    went_on, resumed = out["went_on"], out["resumed"]
    if not all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(went_on, want)):
        raise Fail(
            "the check's own run gave other losses than the check computes: did your code "
            "change torch's functions or the model's?",
            "check_run_changed",
        )
    if resumed == went_on:
        return
    if all(math.isclose(a, b, rel_tol=1e-5) for a, b in zip(resumed, went_on)):
        got, want = _losses(resumed, 15), _losses(went_on, 15)
        raise Fail(RESUME["bits"].format(got=got, want=want), "not_bitwise")
    if not math.isclose(resumed[0], went_on[0], rel_tol=1e-5):
        fresh = " (it is the fresh model's loss)" if resumed[0] == out["fresh"] else ""
        dtype = None if fresh else rounded_to(kw, resumed[0])
        if dtype is not None:
            name = str(dtype).split(".")[-1]
            digits = round(-math.log10(torch.finfo(dtype).resolution))
            raise Fail(
                f"the first loss after loading ({resumed[0]:.6f}) is not the saved model's "
                f"({went_on[0]:.6f}), it is the loss of the saved weights rounded to {name}: the "
                f"model's state lost precision on the way ({name} keeps about {digits} "
                "significant digits, float64 about 15). Keep the tensors in their own dtype (no "
                ".half(), no .to(...)): a resumed run repeats the same numbers to the last bit.",
                "model_rounded",
            )
        raise Fail(
            RESUME["model"].format(
                got=resumed[0], want=went_on[0], fresh=fresh, fix=fixes["model"]
            ),
            fixes["model_code"],
        )
    raise Fail(
        RESUME["optimizer"].format(got=_losses(resumed[1:]), want=_losses(went_on[1:]),
                                   fix=fixes["optimizer"]),
        fixes["optimizer_code"],
    )  # fmt: skip


def _step_fail(step, want: int, fix: str) -> Fail:
    if step is None:
        got = "None (did you forget `return`?)"
    elif isinstance(step, dict):
        got = f"a dict (keys {sorted(step)[:4]}): return the step alone, an int, not the checkpoint"
    else:
        got = repr(step)[:80]
    off = ""
    if type(step) is int and abs(step - want) == 1:
        off = (
            f", one step {'ahead' if step > want else 'behind'}: the checkpoint holds the state "
            f"before step {want}, so the resumed run starts with step {want} (off by one, it "
            "would skip or repeat a step, with its batch and learning rate)"
        )
    return Fail(f"the step read back is {got}, expected {want}{off}: {fix}", "step_lost")


LOAD_ERRORS = [  # (words of the error, message, code)
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
]


WHOLE_STATE = {
    "model": ", every parameter and buffer by name (parameters() and named_parameters() leave "
    "out the buffers, such as a batch norm's running statistics)",
    "optimizer": "",
}


@register
class SaveCheckpointCheck(Exercise):
    id = "07b.save_checkpoint"
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


@register
class LoadCheckpointCheck(Exercise):
    id = "07b.load_checkpoint"
    title = "load a checkpoint and resume"
    points = 3.0

    def probes(self, gen):
        return checkpoint_probes(gen, "load")

    def explain_error(self, probe, error):
        for words, message, code in LOAD_ERRORS:
            if all(w in error for w in words):
                return Fail(f"{message}\n   {error}", code)
        return None

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
                "optimizer": "Load it into the optimizer you are given, "
                "optimizer.load_state_dict(checkpoint['optimizer']).",
                "optimizer_code": "optimizer_not_loaded",
            },
        )


# --------------------------------------------------------------------------- questions

VOCAB_SIZE = 108  # len(set(course_text())): tests/checks/test_nb07b_craft.py holds it


@register
class UniformPerplexityQuestion(Question):
    id = "07b.q_uniform_perplexity"
    title = "the perplexity of a uniform guess"
    answer = VOCAB_SIZE
    wrong_numbers = {
        math.log(VOCAB_SIZE): "that is its loss, -ln(1 / vocab_size) = ln(vocab_size) nats; the "
        "perplexity is e to the loss.",
        1 / VOCAB_SIZE: "that is the probability it gives each character; the perplexity is e to "
        "the loss, the loss -ln of that probability.",
        math.log2(VOCAB_SIZE): "that is the loss in bits; the perplexity is e to the loss in "
        "nats (or 2 to the loss in bits).",
    }
    explanation = (
        f"every character gets probability 1/{VOCAB_SIZE}, so the loss is ln({VOCAB_SIZE}) = "
        f"{math.log(VOCAB_SIZE):.2f} nats at every position and the perplexity e^ln({VOCAB_SIZE}) "
        f"= {VOCAB_SIZE}: as unsure as a uniform choice among all {VOCAB_SIZE} characters, which "
        f"is what it makes. The untrained model, below, starts near that loss."
    )


@register
class ResumeWithoutOptimizerQuestion(Question):
    id = "07b.q_resume_without_optimizer"
    title = "resuming without the optimizer's state"
    answer = "b"
    choices = {
        "a": "AdamW does not rebuild its running averages from one gradient: a fresh AdamW starts "
        "them at 0 and its step count at 1, so its first update is not the one the saved "
        "optimizer would make.",
        "b": "",
        "c": "the loss of the first resumed step is computed before any update, by the model "
        "alone, which was loaded.",
        "d": "once one update differs, the weights differ, and every later loss with them.",
    }
    explanation = (
        "the first loss is computed by the loaded model before the optimizer does anything, so it "
        "is the first run's; the update after it comes from a fresh AdamW (running averages 0, "
        "step count 1), which moves the weights otherwise, and every loss from the second on "
        "differs."
    )
