"""07b.clip_grad_norm: gradient clipping by the global norm (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, Fail, Probe, expect_close, expect_tensor, named, randn, register
from .reference import clip64

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
