"""Notebook 07b: the checkpoint cases and the resumed run that 07b.save_checkpoint and
07b.load_checkpoint share."""

from __future__ import annotations

import math

import torch

from ...framework import Fail, Probe, randn
from ...run.craft import adamw, tiny_model, train_step

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
    lost = out.get("not_restored") or {}
    if lost.get("buffers") and not lost.get("parameters"):
        names = ", ".join(lost["buffers"][:3])
        raise Fail(
            f"the parameters came back, the buffers did not ({names}: a batch norm's running "
            "statistics, which an evaluation in eval mode reads): a model's state is its "
            "state_dict, parameters and buffers alike. "
            + fixes.get("buffers", "Save and load model.state_dict() whole."),
            fixes.get("buffers_code", "buffers_not_restored"),
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
        if "not_restored" in out and not lost.get("parameters") and not fresh:
            raise Fail(  # the weights came back: seen, no cause named
                f"the first loss after loading ({resumed[0]:.6f}) is not the saved model's "
                f"({went_on[0]:.6f}), though the model holds the saved parameters and buffers."
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
