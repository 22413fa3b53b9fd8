"""Relations of a "props" probe: the candidate run once more per relation (kernel side; the
judge's half is ``checks/properties.py``, ``judge_relations``).

    props(probe, *relations)   the probe, with runner "props:<relations>"; relations:
        "batch"   each batch element alone gives its row of the batched output (no mixing)
        "masked"  changing the keys/values the boolean ``mask`` kwarg blocks for every query
                  changes nothing (args: q, k, v)
        "meta"    the inputs on device "meta": the output stays there (no state created on the
                  default device instead of the input's)

The runner "props" returns {"out": the plain call, relation: what it gave, or {"error"}}.
"""

from __future__ import annotations

import dataclasses

import torch

from .calling import call_candidate, describe_exception, load_state


def props(probe, *relations: str):
    """``probe`` checked for ``relations`` too (see the module docstring)."""
    return dataclasses.replace(probe, runner="props:" + ",".join(relations))


def base_runner(probe) -> str:
    return "module" if probe.init is not None else "call"


def _batch_slices(x, B: int, b: int):
    if isinstance(x, torch.Tensor):
        return x[b : b + 1] if x.dim() >= 2 and x.shape[0] == B else x
    if isinstance(x, (tuple, list)):
        return type(x)(_batch_slices(v, B, b) for v in x)
    if isinstance(x, dict):
        return {k: _batch_slices(v, B, b) for k, v in x.items()}
    return x


def _run_batch(ex, probe, candidate, device):
    B = probe.args[0].shape[0]
    return [
        call_candidate(
            ex,
            dataclasses.replace(
                probe,
                args=_batch_slices(probe.args, B, b),
                kwargs=_batch_slices(probe.kwargs, B, b),
            ),
            candidate,
            device,
        )
        for b in range(B)
    ]


def _run_masked(ex, probe, candidate, device):
    q, k, v, *rest = probe.args
    unused = (~probe.kwargs["mask"].any(-2))[..., None]  # keys no query may see
    k2 = torch.where(unused, k.flip(-1) * 7 + 3, k)
    v2 = torch.where(unused, v.flip(-1) * 7 - 3, v)
    probe = dataclasses.replace(probe, args=(q, k2, v2, *rest))
    return call_candidate(ex, probe, candidate, device)


def _run_meta(ex, probe, candidate, device):
    meta = torch.device("meta")
    args = tuple(a.to(meta) if isinstance(a, torch.Tensor) else a for a in probe.args)
    kwargs = {k: a.to(meta) if isinstance(a, torch.Tensor) else a for k, a in probe.kwargs.items()}
    if probe.init is not None:
        module = candidate(**probe.init)
        if probe.state is not None:
            load_state(module, probe.state)
        out = module.to(meta).eval()(*args, **kwargs)
    else:
        out = candidate(*args, **kwargs)
    ts = [out] if isinstance(out, torch.Tensor) else [t for t in out if isinstance(t, torch.Tensor)]
    return {"devices": sorted({t.device.type for t in ts})}


RELATIONS = {"batch": _run_batch, "masked": _run_masked, "meta": _run_meta}


def run_props(ex, probe, candidate, device):
    base = dataclasses.replace(probe, runner=base_runner(probe))
    out = {"out": call_candidate(ex, base, candidate, device)}
    for rel in probe.runner.partition(":")[2].split(","):
        try:
            out[rel] = RELATIONS[rel](ex, base, candidate, device)
        except Exception as exc:  # judged as a property of its own
            out[rel] = {"error": describe_exception(exc)}
    return out
