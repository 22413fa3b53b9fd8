"""Run a module built from other exercises' parts again with those parts replaced, so that the
judge can find the faulty one (kernel side; the judge's half is ``checks/parts.py``).

The learner's module runs on the probe; then every learner-written part the exercise names
(``ex.parts``: a LayerNorm, a MultiHeadAttention, an encoder block...) is replaced by a
stand-in (:data:`STAND_INS`) with the same weights and the module runs again. Only when that
changes the output does each kind of part get replaced alone. Stand-ins are PyTorch's
built-ins or an earlier notebook's blocks (never the graded notebook's): a LayerNorm on
``nn.LayerNorm`` (which 05.LayerNorm switches off), a patch embedding on ``nn.Conv2d``, an
attention or a block from ``helpers.blocks``. ``ex.function_parts`` does the same for a
function the learner's module calls by its global name (:data:`FUNCTIONS`), and
``ex.traced`` records a block's children's calls.

:func:`wrapped` applies them to every runner but "module_info" (``runner.call``); ``parts`` is
the eval-mode runner of such modules.
"""

from __future__ import annotations

import contextlib
import re
from collections import OrderedDict
from functools import partial

import torch
from torch import nn

from .calling import RandomInEval, clone_tensors, inputs_kept, load_weights, same, to_device

FLOW_KEY = "__flow__"  # marks a runner's output that carries its children's calls


PARTS_KEY = "__parts__"  # marks a runner's output that carries the swapped runs


def _dtype(part: nn.Module) -> torch.dtype:
    return next((p.dtype for p in part.parameters()), torch.float32)


def _loaded(stand_in: nn.Module, part: nn.Module) -> nn.Module:
    """``stand_in`` with ``part``'s parameters (by the contract's names), dtype and mode."""
    own = stand_in.state_dict()
    theirs = {k: v for k, v in part.state_dict().items() if k in own and v.shape == own[k].shape}
    stand_in.to(_dtype(part)).load_state_dict(theirs, strict=False)
    missing = [k for k, _ in stand_in.named_parameters() if k not in theirs]
    if missing:
        raise ValueError(f"no {missing[0]} to copy")  # a part off the contract: not swapped
    return stand_in.train(part.training)


class PatchEmbedding(nn.Module):
    """09.PatchEmbedding on nn.Conv2d: (B, C, H, W) -> (B, N, d_model)."""

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        self.proj = conv

    def forward(self, images):
        return self.proj(images).flatten(2).transpose(1, 2)


def _layer_norm(part, init):
    return _loaded(nn.LayerNorm(part.weight.shape[-1]), part)  # the contract's eps, 1e-5


def _dropout(part, init, name: str = "dropout") -> float:
    """The part's dropout as built (a block that forgets to pass it on is the block's fault)."""
    drop = getattr(part, name, None)
    return drop.p if isinstance(drop, nn.Dropout) else init.get("dropout", 0.0)


def _feed_forward(part, init):
    d_ff, d = part.linear1.weight.shape
    x, training = torch.randn(3, d, dtype=_dtype(part)), part.training
    acts = [nn.GELU(), nn.ReLU()] if init.get("activation") == "gelu" else [nn.ReLU(), nn.GELU()]
    ffs = [  # 05.FeedForward on nn.Linear: linear1, activation, dropout, linear2
        _loaded(nn.Sequential(OrderedDict(linear1=nn.Linear(d, d_ff), activation=act,
                dropout=nn.Dropout(0), linear2=nn.Linear(d_ff, d))), part)
        for act in acts
    ]  # fmt: skip
    with torch.no_grad():  # the activation as built (the block may not pass it on)
        want = part.eval()(x)
        ff = next((f for f in ffs if torch.allclose(f.eval()(x), want, atol=1e-5)), ffs[0])
    part.train(training)
    ff.dropout.p = _dropout(part, init)
    return ff.train(training)


def _attention(part, init):
    from helpers.blocks.multihead import MultiHeadAttention  # notebook 03's

    d = part.q_proj.weight.shape[0]
    return _loaded(MultiHeadAttention(d, init["num_heads"], _dropout(part, init)), part)


def _encoder_block(part, init):
    from helpers.blocks.layers import TransformerEncoderBlock  # notebook 05's, configured ...

    norm_first = getattr(part, "norm_first", None)  # ... as the learner's block was built
    norm_first = norm_first if isinstance(norm_first, bool) else init.get("norm_first", True)
    block = TransformerEncoderBlock(
        init["d_model"], init["num_heads"], init["d_ff"], 0.0, norm_first
    )
    block.self_attn, block.ffn = _attention(part.self_attn, init), _feed_forward(part.ffn, init)
    for name in ("dropout1", "dropout2"):
        getattr(block, name).p = _dropout(part, {"dropout": init.get("dropout", 0.0)}, name)
    return _loaded(block, part)


def _positional(part, init):
    from helpers.blocks.positional import PositionalEncoding  # notebook 04's

    return PositionalEncoding(init["d_model"], dropout=init.get("dropout", 0.0)).train(
        part.training
    )


def _patch_embedding(part, init):
    w = part.proj.weight  # (d_model, C, p, p)
    conv = nn.Conv2d(w.shape[1], w.shape[0], kernel_size=w.shape[-1], stride=w.shape[-1])
    return _loaded(PatchEmbedding(conv), part)


#: a part's exercise -> the stand-in for a learner's module of it: factory(part, init)
STAND_INS = {
    "03.MultiHeadAttention": _attention,
    "04.PositionalEncoding": _positional,
    "05.FeedForward": _feed_forward,
    "05.LayerNorm": _layer_norm,
    "05.TransformerEncoderBlock": _encoder_block,
    "09.PatchEmbedding": _patch_embedding,
}


def learner_parts(ex, module: nn.Module) -> dict[str, list[tuple[str, object]]]:
    """{part's exercise: [(submodule name, factory)]} for the learner-written parts of
    ``module``, found by ``ex.parts`` ((submodule name pattern, the part's exercise), ...)."""
    groups: dict[str, list] = {}
    for name, sub in module.named_modules():
        if type(sub).__module__.split(".")[0] in ("torch", "helpers"):
            continue  # a built-in or the course's block: nothing of the learner's to replace
        for pattern, part_id in ex.parts:
            if re.fullmatch(pattern, name):
                groups.setdefault(part_id, []).append((name, STAND_INS[part_id]))
    return groups


def _replace(module: nn.Module, named: list, init: dict) -> None:
    for name, factory in named:
        parent_name, _, attr = name.rpartition(".")
        parent = module.get_submodule(parent_name)
        setattr(parent, attr, factory(getattr(parent, attr), init))


def traced(runner, names: tuple[str, ...]):
    """Wrap a runner: forward hooks on the module's children ``names`` record the first input
    and output tensor of their first call and how many calls; a tensor output comes back as
    {FLOW_KEY: {"norm1.in": ..., "norm1.out": ..., "norm1.calls": 1, ...}, "out": output}."""

    def run(ex, probe, candidate, device):
        flow: dict = {f"{name}.calls": 0 for name in names}

        def record(name, module, args, kwargs, out):
            flow[f"{name}.calls"] += 1
            flow.setdefault(f"{name}.in", _first([*args, *kwargs.values()]))
            flow.setdefault(f"{name}.out", _first(out))

        def build(*args, **init):
            module = candidate(*args, **init)
            for name in names:
                sub = getattr(module, name, None)
                if isinstance(sub, nn.Module):
                    sub.register_forward_hook(partial(record, name), with_kwargs=True)
            return module

        out = runner(ex, probe, build, device)
        return {FLOW_KEY: flow, "out": out} if isinstance(out, torch.Tensor) else out

    return run


def _first(x):
    x = x if isinstance(x, (tuple, list)) else [x]
    return next((t.detach() for t in x if isinstance(t, torch.Tensor)), None)


def with_parts(runner):
    """Wrap a runner ``(ex, probe, candidate, device)``: run it, then again on modules whose
    learner-written parts are replaced right after construction (the probe's weights are loaded
    into the stand-ins by name). When that changes the output, each kind of part is replaced
    alone too: {PARTS_KEY: True, "out", "parts": [exercise ids], "swaps": {"*" | id: output}}."""

    def run(ex, probe, candidate, device):
        found: list = []

        def replacing(only):
            def build(*args, **init):
                module = candidate(*args, **init)
                if isinstance(module, nn.Module):
                    groups = learner_parts(ex, module)
                    found.append(list(groups))
                    for part_id, named in groups.items():
                        if only in ("*", part_id):
                            _replace(module, named, init)
                return module

            return build

        try:  # first with every part replaced: without parts of the learner's, that is the run
            every = runner(ex, probe, replacing("*"), device)
        except Exception:  # a part off the contract, or a module that needs the learner's part
            return runner(ex, probe, candidate, device)
        parts = found[0] if found else []
        if not parts:
            return every
        out = runner(ex, probe, candidate, device)
        if same(out, every):
            return out
        swaps = {"*": every}
        for part_id in parts if len(parts) > 1 else ():
            with contextlib.suppress(Exception):
                swaps[part_id] = runner(ex, probe, replacing(part_id), device)
        return {PARTS_KEY: True, "out": out, "parts": parts, "swaps": swaps}

    return run


def _attention_function():
    from helpers.blocks.attention import scaled_dot_product_attention  # notebook 02's

    return scaled_dot_product_attention


#: a function part's exercise -> its stand-in (the function itself)
FUNCTIONS = {"02.scaled_dot_product_attention": _attention_function}


def with_function_part(runner):
    """Wrap a runner: run it again with the learner's own functions of ``ex.function_parts``
    (exercise ids; a global of the candidate's forward named as the exercise, e.g. the
    notebook's scaled_dot_product_attention) replaced by the stand-ins of :data:`FUNCTIONS`; a
    changed output comes back as :func:`with_parts`' does."""

    def run(ex, probe, candidate, device):
        out = runner(ex, probe, candidate, device)
        scope = getattr(getattr(candidate, "forward", None), "__globals__", {})
        learner = {}  # part's exercise -> (global name, the learner's function)
        for part_id in ex.function_parts:
            name = part_id.split(".", 1)[1]
            found = scope.get(name)
            module = getattr(found, "__module__", None) or ""
            if callable(found) and not module.startswith(("torch", "helpers")):
                learner[part_id] = (name, found)
        if not learner:
            return out  # no function of the learner's to replace
        try:
            for part_id, (name, _) in learner.items():
                scope[name] = FUNCTIONS[part_id]()
            every = runner(ex, probe, candidate, device)
        except Exception:  # the learner's module calls it another way than the contract's
            return out
        finally:
            scope.update(dict(learner.values()))
        if same(out, every):
            return out
        return {PARTS_KEY: True, "out": out, "parts": list(learner), "swaps": {"*": every}}

    return run


def run_parts(ex, probe, candidate, device):
    """Build, load the probe's weights, call ``forward`` or ``probe.info["method"]`` in eval
    mode; a second call that differs (a dropout that eval() leaves on) raises RandomInEval."""
    module = candidate(**probe.init)
    if not isinstance(module, nn.Module):
        return module
    load_weights(module, probe.state or {})
    module.to(device).eval()
    args, kwargs = to_device(probe.args, device), to_device(probe.kwargs, device)
    before = clone_tensors((args, kwargs))
    method = getattr(module, probe.info.get("method", "forward"))
    with torch.no_grad():
        out = method(*args, **kwargs)
        if (probe.init or {}).get("dropout") and not same(out, method(*args, **kwargs)):
            raise RandomInEval
    return inputs_kept(out, before, (args, kwargs))


def wrapped(ex, runner):
    """``runner`` with the parts of exercise ``ex`` replaced and its children traced, as the
    exercise declares (``traced``, ``parts``, ``function_parts``; the runner itself where it
    declares none)."""
    if ex.traced:
        runner = traced(runner, ex.traced)
    if ex.parts:
        runner = with_parts(runner)
    if ex.function_parts:
        runner = with_function_part(runner)
    return runner
