"""07b.lr_at: warm-up and cosine decay (its check)."""

from __future__ import annotations

import math

import torch

from ...framework import Exercise, Fail, Probe, register, slips
from .reference import lr64

LR_MISTAKES = {
    "warmup_from_zero": "the warm-up starts at 0 (max_lr * step / warmup): step 0 then takes "
    "no step at all. Use max_lr * (step + 1) / (warmup + 1), which reaches max_lr at step "
    "warmup.",
    "warmup_one_short": "the warm-up reaches max_lr one step early (max_lr * (step + 1) / "
    "warmup): use (step + 1) / (warmup + 1), so that max_lr comes at step warmup, where the "
    "cosine starts.",
    "no_warmup": "there is no warm-up: for step < warmup the rate rises linearly, "
    "max_lr * (step + 1) / (warmup + 1).",
    "progress_from_zero": "the cosine's progress is counted from step 0 (step / total): count "
    "it from the end of the warm-up, (step - warmup) / (total - warmup), so that the decay "
    "starts at max_lr.",
    "progress_over_total": "the cosine's progress is (step - warmup) / total: divide by the "
    "length of the decay, total - warmup, so that it reaches min_lr at step total.",
    "no_floor": "after step total the rate rises again (the cosine goes on past pi): from step "
    "total on it stays at min_lr.",
    "to_zero": "the cosine decays to 0, not to min_lr: min_lr + (max_lr - min_lr) * 0.5 * "
    "(1 + cos(pi * progress)).",
    "min_added": "min_lr is added to the full cosine of max_lr, so the rate starts at max_lr + "
    "min_lr: scale the cosine by max_lr - min_lr.",
    "no_half": "the cosine factor is 1 + cos(...), which starts at 2: multiply it by 0.5, so it "
    "goes from 1 to 0.",
    "linear": "the decay is a straight line: use the cosine, 0.5 * (1 + cos(pi * progress)).",
    "no_pi": "the cosine's argument has no pi: cos(t) covers 1 radian of the cosine and ends "
    "far above min_lr at step total. Use cos(pi * t), from cos 0 = 1 to cos pi = -1, half a "
    "cosine.",
    "rises": "the rate rises from min_lr to max_lr during the decay, as a cosine factor of "
    "0.5 * (1 - cos(pi * t)) does (from 0 up to 1), or a t that runs backwards: use "
    "t = (step - warmup) / (total - warmup) and 1 + cos(pi * t), which starts at max_lr at "
    "step warmup and falls.",
    "floor_division": "t = (step - warmup) // (total - warmup) is floor (integer) division: t is "
    "0 at every step of the decay but the last, so the rate stays at max_lr. Use / for t.",
    "decay_at_max": "the rate is still max_lr here, inside the decay (t is 0 at this step, or "
    "the cosine is 1): t = (step - warmup) / (total - warmup) and 0.5 * (1 + cos(pi * t)) bring "
    "it from max_lr at step warmup down to min_lr at step total.",
    "decay_at_min": "the rate is already min_lr here, inside the decay (t is 1 at this step, or "
    "the cosine is 0, or max_lr - min_lr is lost): t = (step - warmup) / (total - warmup) and "
    "0.5 * (1 + cos(pi * t)) bring it from max_lr at step warmup down to min_lr at step total.",
    "warmup_from_min_lr": "the warm-up starts from min_lr: it rises from 0, max_lr * (step + 1) "
    "/ (warmup + 1) (min_lr is the floor the decay ends at).",
    "divides_by_warmup": "with warmup = 0 (no warm-up) your code divides by zero: compute "
    "anything divided by warmup only inside the `step < warmup` branch, which warmup = 0 never "
    "enters.",
}


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
        variants = [
            ("warmup_from_zero", {"warm": "from_zero"}),
            ("warmup_one_short", {"warm": "one_short"}),
            ("progress_from_zero", {"progress": "from_zero"}),  # before no_warmup: the same
            ("no_warmup", {"warm": "none"}),  # after the warm-up, where both are wrong
            ("progress_over_total", {"progress": "over_total"}),
            ("no_floor", {"floor": False}),
            ("to_zero", {"shape": "to_zero"}),
            ("min_added", {"shape": "min_added"}),
            ("no_half", {"shape": "no_half"}),
            ("linear", {"shape": "linear"}),
            ("no_pi", {"shape": "no_pi"}),
            ("rises", {"shape": "rises"}),
            ("floor_division", {"progress": "floor_div"}),
            ("warmup_from_min_lr", {"warm": "from_min_lr"}),
        ]
        step, warmup, total, max_lr, min_lr = probe.args
        values = [(code, lr64(*probe.args, **switch)) for code, switch in variants]
        if warmup <= step <= total:  # a decay that does not move, at either end
            values += [("decay_at_max", max_lr), ("decay_at_min", min_lr)]
        found = [c for c, v in values if not math.isclose(v, ref, rel_tol=1e-6, abs_tol=1e-12)
                 and math.isclose(out, v, rel_tol=1e-6, abs_tol=1e-12)]  # fmt: skip
        if "progress_from_zero" in found and step >= warmup:  # the warm-up passed before
            found = [c for c in found if c != "no_warmup"]
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            raise Fail(f"got {out:.6g}, expected {ref:.6g}: " + LR_MISTAKES[found[0]], found[0])
        if found:  # one number, several slips that give it: said as such, none named
            heads = slips(found, LR_MISTAKES)
            raise Fail(
                f"got {out:.6g}, expected {ref:.6g}: this is what each of these gives at this "
                f"step: {heads}. {LR_FORMULA}"
            )
        raise Fail(f"got {out:.6g}, expected {ref:.6g}.")

    def explain_error(self, probe, error):
        warmup = probe.args[1]
        if warmup == 0 and ("ZeroDivisionError" in error or "division by zero" in error):
            return Fail(LR_MISTAKES["divides_by_warmup"], "divides_by_warmup")
        return None
