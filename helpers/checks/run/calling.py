"""Call a learner's object on one probe: the plain data in, the call, the plain data out.

Kernel side (``helpers/checks/run/``, what a grading kernel gets whole): a :class:`Probe` says
what to call the object with; this module moves its tensors to the device, switches off the
built-ins the exercise re-implements, builds a module and loads the check's weights into it
(the runners "call", "module" and "module_info"), calls it, keeps the inputs as they were, and
turns the output into plain data (:func:`plain`). Raises whatever the candidate raises
(``runner.run_probe`` turns that into an Outcome); the check's own step that fails raises
:class:`StateMismatch`, never "your code raised"; what a runner sees the candidate do besides
its output raises a :class:`Seen` (an input changed in place, a dropout left on in eval mode),
which the Outcome reports by name.
"""

from __future__ import annotations

import linecache
import os
import traceback
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn.parameter import is_lazy

try:  # in a grading kernel: the grader's private copy, shipped beside the runners
    from .device import to_device  # (a learner's patch of helpers.device cannot reach it)
except ImportError:  # the course's package
    from ...device import to_device

HELPERS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))


# --------------------------------------------------------------------------- plain data


@dataclass
class Probe:
    """One test case: what to call the candidate with.

    ``runner`` names how the candidate is called, a key of ``runner.RUNNERS``: "call" (a
    function), "module" (construct with ``init``, load ``state`` if given, then call
    ``forward``), "module_info" (construct and report parameter and buffer names), or a runner of
    its own ("props:<relations>", "device", "train_mode", "decode"...).
    ``info`` is for the judge only; a grading kernel gets its "method" alone.
    """

    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    runner: str = "call"
    init: dict | None = None
    state: dict | None = None
    info: dict = field(default_factory=dict)
    cpu_only: bool = False  # keep on the CPU (float64 cases: mps has no float64)


@dataclass
class Unsupported:
    """Stands for an output value that is not plain data (a NumPy array, a custom object...)."""

    type_name: str


def plain(x: Any, depth: int = 0) -> Any:
    """Keep tensors (detached, on the CPU), numbers, strings, None, tuples, lists and dicts.

    Anything else becomes :class:`Unsupported`, so a learner's object with a clever
    ``__eq__`` never reaches a comparison. A tensor subclass is not a tensor here.
    """
    if depth > 4:
        return Unsupported("a structure nested too deeply")
    if isinstance(x, torch.Tensor) and x.device.type != "cpu":
        try:  # a GPU's, or fakegpu's (fake_gpu.py: a subclass that says it is elsewhere)
            x = x.detach().to("cpu")
        except Exception:  # a meta tensor has no values to copy
            return Unsupported(f"a tensor on device {x.device.type} (no values to compare)")
    if type(x) is torch.Tensor or type(x) is torch.nn.Parameter:
        return x.detach().to("cpu").clone()
    if isinstance(x, torch.Tensor):
        return Unsupported(f"a tensor subclass ({type(x).__name__})")
    if x is None or type(x) in (bool, int, float, str):
        return x
    if type(x) in (tuple, list):
        return type(x)(plain(v, depth + 1) for v in x)
    if type(x) is dict:
        return {str(k): plain(v, depth + 1) for k, v in x.items()}
    return Unsupported(f"{type(x).__module__}.{type(x).__name__}")


# --------------------------------------------------------------------------- errors


def learner_frame(tb) -> traceback.FrameSummary | None:
    """The innermost frame that is neither the helpers package nor torch."""
    frames = traceback.extract_tb(tb)
    for frame in reversed(frames):
        path = os.path.abspath(frame.filename)
        if path.startswith(HELPERS_DIR) or path.startswith(TORCH_DIR):
            continue
        return frame
    return None


def describe_exception(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    msg = " ".join(lines[:3])  # load_state_dict puts the missing keys on the lines after the first
    if len(msg) > 400:
        msg = msg[:400] + "..."
    text = f"your code raised {type(exc).__name__}" + (f": {msg}" if msg else "")
    frame = learner_frame(exc.__traceback__)
    if frame is not None:
        line = frame.line or linecache.getline(frame.filename, frame.lineno).strip()
        text += f"\n   in {frame.name}, line {frame.lineno}: {line}"
    return text


# --------------------------------------------------------------------------- running


def tensors_on(x: Any, device: torch.device) -> bool:
    if isinstance(x, torch.Tensor):
        return x.device.type == device.type
    if isinstance(x, (tuple, list)):
        return all(tensors_on(v, device) for v in x)
    if isinstance(x, dict):
        return all(tensors_on(v, device) for v in x.values())
    return True


def call_candidate(ex, probe: Probe, candidate: Any, device: torch.device) -> Any:
    """The runners "call", "module" and "module_info"; raises whatever the candidate raises."""
    # copies, so that a candidate that writes into its inputs cannot change the probe's tensors
    args = clone_tensors(to_device(probe.args, device))
    kwargs = clone_tensors(to_device(probe.kwargs, device))
    before = clone_tensors((args, kwargs))
    if probe.runner == "call":
        return inputs_kept(candidate(*args, **kwargs), before, (args, kwargs))
    if probe.runner not in ("module", "module_info"):
        raise ValueError(f"{probe.runner!r} is not a runner of calling.call_candidate")
    module = candidate(**(probe.init or {}))
    if not isinstance(module, torch.nn.Module):
        return module  # the judge reports the type
    if probe.runner == "module_info":
        return module_info(module)
    if probe.state is not None:
        if any(t.dtype == torch.float64 for t in _tensors(probe.state)):
            module.double()  # float64 weights: the module computes in float64 (a float64 case)
        load_state(module, probe.state)
    module.to(device).eval()
    method = probe.info.get("method", "forward")
    call = getattr(module, method) if method != "forward" else module
    with torch.no_grad():
        out = call(*args, **kwargs)
        if (probe.init or {}).get("dropout") and not same(out, call(*args, **kwargs)):
            raise RandomInEval
    return inputs_kept(out, before, (args, kwargs))


def same(a, b) -> bool:
    """Equal up to float32 rounding, structure and all."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.allclose(a, b, atol=1e-6, rtol=1e-5))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        return all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        return all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and not isinstance(a, torch.Tensor)


class StateMismatch(Exception):
    """The check's own step failed: its weights do not fit the learner's module."""


#: the start of the message of a :class:`StateMismatch` (the judge maps it to its code)
STATE_MISMATCH = "the check could not load its weights into your module"


def load_state(module: torch.nn.Module, state: dict) -> None:
    """Load the check's ``state`` into ``module``, or raise :class:`StateMismatch` naming each
    parameter or buffer that differs (never "your code raised" for the check's own step)."""
    mine = module.state_dict()
    missing = [k for k in state if k not in mine]
    extra = [k for k in mine if k not in state]
    shapes = [
        f"{k} is {tuple(mine[k].shape)} in your module, {tuple(v.shape)} in the check's"
        for k, v in state.items()
        if k in mine and tuple(mine[k].shape) != tuple(v.shape)
    ]
    parts = [f"your module has no {', '.join(missing[:4])}"] if missing else []
    parts += [f"the check has no {', '.join(extra[:4])}"] if extra else []
    parts += shapes[:3]
    if parts:
        raise StateMismatch(
            f"{STATE_MISMATCH} ({'; '.join(parts)}). The check copies the same weights into "
            "your module and its reference to compare their outputs, so the parameters and "
            "buffers must have the names and shapes the exercise gives (the notebook's "
            "__init__), and a buffer sized by an argument must follow that argument."
        )
    module.load_state_dict(to_device(state, torch.device("cpu")))


def load_weights(module: torch.nn.Module, state: dict) -> None:
    """:func:`load_state`, but buffers are the learner's business: a positional table of another
    max_len or layout, or one kept out of the state dict, stays as built (the parameters'
    names are checked by module_info first). Raises StateMismatch for a parameter."""

    own, params, mine = module.state_dict(), dict(module.named_parameters()), {}
    for key, value in state.items():
        if key in own and own[key].shape != value.shape and own[key].numel() == value.numel():
            value = value.reshape(own[key].shape)  # (max_len, d) or (1, max_len, d)
        if key in own and own[key].shape == value.shape:
            mine[key] = value
        elif key in params:
            raise StateMismatch(
                f"{STATE_MISMATCH} ({key} is {tuple(own[key].shape)} in your module, "
                f"{tuple(value.shape)} in the check's): it copies its weights by name and shape "
                "to compare your module's outputs with the reference's."
            )
    module.load_state_dict(mine, strict=False)


class Seen(Exception):
    """What a runner saw the candidate do besides its output: ``runner.Outcome`` has a field
    of this name, set where it is raised."""

    field = ""


class InputChanged(Seen):
    """The candidate wrote into one of its inputs (x[x < 0] = 0, x /= ..., x.clamp_())."""

    field = "input_changed"


class RandomInEval(Seen):
    """Two calls in eval mode gave different outputs: a dropout that eval() leaves on."""

    field = "random_in_eval"


def clone_tensors(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (tuple, list)):
        return type(x)(clone_tensors(v) for v in x)
    if isinstance(x, dict):
        return {k: clone_tensors(v) for k, v in x.items()}
    return x


def _tensors(x: Any) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    return []


def inputs_kept(out: Any, before: Any, after: Any) -> Any:
    """``out``; raises :class:`InputChanged` when the candidate wrote into one of its inputs
    (the caller's tensor would change under it)."""
    for a, b in zip(_tensors(before), _tensors(after)):
        both_nan = (a.isnan() & b.isnan()) if a.is_floating_point() else False
        same = a.shape == b.shape and bool(((a == b) | both_nan).all())
        if not same:
            raise InputChanged
    return out


def _attributes(module: torch.nn.Module) -> dict:
    """A module's own attributes that are plain numbers or strings."""
    return {
        n: v
        for n, v in vars(module).items()
        if type(v) in (int, float, bool, str) and not n.startswith("_") and n != "training"
    }


def module_info(module: torch.nn.Module) -> dict:
    """Names and shapes of parameters and buffers, the child modules' class names, and the
    module's own attributes that are plain numbers or strings ("attributes": the contract names
    some, such as PatchEmbedding's num_patches).

    Lazy layers (nn.LazyLinear) have no shape before their first call: their names are listed
    under "lazy" (the judge asks for layers sized at construction)."""
    lazy = [n for n, p in module.named_parameters() if is_lazy(p)]
    info = {
        "parameters": {
            n: ([] if is_lazy(p) else list(p.shape)) for n, p in module.named_parameters()
        },
        "buffers": {n: ([] if is_lazy(b) else list(b.shape)) for n, b in module.named_buffers()},
        "children": {n: type(m).__name__ for n, m in module.named_children()},
        "state_dict": sorted(module.state_dict()),
        "attributes": _attributes(module),
        # every submodule's, under its path: "norm1.eps", "self_attn.d_head"
        "inner": {
            f"{p}.{n}": v for p, m in module.named_modules() if p for n, v in _attributes(m).items()
        },  # fmt: skip
    }
    if lazy:
        info["lazy"] = lazy
    return info
