"""07b.clip_grad_norm: gradient clipping by the global norm (its check)."""

from __future__ import annotations

import torch

from ...framework import Exercise, Fail, Probe, expect_close, expect_tensor, randn, register
from ...mistakes import variants
from .reference import clip64, clip_as_learner


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
    reference64 = staticmethod(clip64)
    learner = staticmethod(clip_as_learner)
    errors = (
        (
            ("NoneType",),
            "a parameter without a gradient (p.grad is None: it took no part in the loss, or it "
            "is frozen) made your code fail: skip it, `if p.grad is None: continue` (or keep "
            "[p for p in parameters if p.grad is not None]).",
            "none_grad",
        ),
    )
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
        catalogue = self.mistakes

        def wrong(pick, codes=None, **fields):
            return variants(catalogue, clip64, (grads, max_norm), pick=pick, codes=codes,
                            fields=fields)  # fmt: skip

        zero = torch.zeros((), dtype=torch.float64)  # a generator read before: nothing summed
        what = "the norm is 0 (the gradients were read by an earlier loop)"
        consumed = [(zero, catalogue["generator_consumed"].say(what=what), "generator_consumed")]
        expect_close(  # one number: no factor or offset claimed (properties.diagnose)
            value.reshape(()),
            total,
            "the returned norm",
            mistakes=(consumed if generator else []) + wrong(lambda o: o[0]),
        )
        dtype = next(g.dtype for g in grads if g is not None)
        got = torch.cat([g.flatten() for g in out["grads"] if g is not None]).to(dtype)

        def flat(o):
            return torch.cat([g.flatten() for g in o[1]])

        # max_norm = 1: the factor upside down and max_norm times total are the same, said so
        flipped = ("inverted", "multiplied") if max_norm != 1.0 else ()
        table = wrong(flat, ("per_parameter", "scales_up") + flipped + ("not_written_back",))
        if max_norm == 1.0:
            inverted = wrong(flat, ("inverted",))[0][0]
            table.append((inverted, catalogue["scaled_by_total"].message, "scaled_by_total"))
        if generator:  # unchanged gradients: the loop that scales them found none
            what = "the gradients were not scaled (the loop that scales them found none)"
            said = catalogue["generator_consumed"].say(what=what)
            table = [(v, said, "generator_consumed") if code == "not_written_back" else
                     (v, m, code) for v, m, code in table]  # fmt: skip
        expect_close(got, flat((total, ref)), "the gradients after clipping", mistakes=table)
