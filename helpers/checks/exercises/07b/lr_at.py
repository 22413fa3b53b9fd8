"""07b.lr_at: warm-up and cosine decay (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import Exercise, Fail, Probe, register, slips
from ...mistakes import outputs
from .reference import lr64

LR_FORMULA = (
    "The schedule: max_lr * (step + 1) / (warmup + 1) for step < warmup, then min_lr + "
    "(max_lr - min_lr) * 0.5 * (1 + cos(pi * t)) with t = (step - warmup) / (total - warmup), "
    "and min_lr after step total."
)


# (warmup, total, max_lr, min_lr) and the steps probed: each phase and both of its ends
SCHEDULES = [
    # step 4 before 0 and 40 before 10: min_lr = max_lr / 10 makes several slips agree at
    # steps 0 and 10 (a warm-up from min_lr and one a step ahead; a rising cosine and a flat one)
    ((10, 100, 1e-3, 1e-4), (4, 0, 9, 40, 10, 73, 100, 130)),
    ((0, 50, 3e-3, 0.0), (0, 20, 49, 60)),
    ((4, 20, 1.0, 0.1), (3, 4, 12, 20)),
]


@register
class LrAtCheck(Exercise):
    id = "07b.lr_at"
    returns = {"": (float,)}  # "-> float"
    title = "warm-up and cosine decay"
    points = 2.0
    reference64 = staticmethod(lr64)

    def probes(self, gen):
        for (warmup, total, max_lr, min_lr), steps in SCHEDULES:
            for step in steps:
                name = (
                    f"step {step} of warmup = {warmup}, total = {total}, max_lr = {max_lr:g}, "
                    f"min_lr = {min_lr:g}"
                )
                yield Probe(name, args=(step, warmup, total, max_lr, min_lr), cpu_only=True)

    def judge(self, probe, out):
        if isinstance(out, torch.Tensor) and out.numel() == 1:
            out = out.item()
        if type(out) not in (int, float):
            got = "None (did you forget `return`?)" if out is None else type(out).__name__
            raise Fail(f"lr_at should return a number (a float), got {got}.", "not_a_number")
        ref = lr64(*probe.args)
        if math.isclose(out, ref, rel_tol=1e-6, abs_tol=1e-12):
            return
        step, warmup, total, max_lr, min_lr = probe.args
        wrong = outputs(self.mistakes, lr64, probe.args)
        values = [(code, v) for code, vs in wrong.items() for v in vs]
        if warmup <= step <= total:  # a decay that does not move, at either end
            values += [("decay_at_max", max_lr), ("decay_at_min", min_lr)]
        found = [c for c, v in values if not math.isclose(v, ref, rel_tol=1e-6, abs_tol=1e-12)
                 and math.isclose(out, v, rel_tol=1e-6, abs_tol=1e-12)]  # fmt: skip
        if "progress_from_zero" in found and step >= warmup:  # the warm-up passed before
            found = [c for c in found if c != "no_warmup"]
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            said = self.mistakes[found[0]].message
            raise Fail(f"got {out:.6g}, expected {ref:.6g}: " + said, found[0])
        if found:  # one number, several slips that give it: said as such, none named
            heads = slips(found, {c: m.message for c, m in self.mistakes.items()})
            raise Fail(
                f"got {out:.6g}, expected {ref:.6g}: this is what each of these gives at this "
                f"step: {heads}. {LR_FORMULA}"
            )
        raise Fail(f"got {out:.6g}, expected {ref:.6g}.")

    def explain_error(self, probe, error):
        warmup = probe.args[1]
        if warmup == 0 and ("ZeroDivisionError" in error or "division by zero" in error):
            return self.fail("divides_by_warmup")
        return None
