"""Runners that hand the learner's function a model or a loop of its own to drive, and the
runner of the trained-model exercises (kernel side: plain data out, no reference).

    training_loop  a tiny model and its optimizer built from the probe, handed to the learner's
                   loop with a loss that counts its calls: what it returned, the parameters after
    decode         greedy decoding on a scripted model built from the probe (07)
    kv_decode      one token at a time from cache=None, as a decoder would (08)
    predict        the learner's trained model on held-out inputs: argmax predictions, the same
                   with its weights shuffled, and its weights (06, 09)
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .calling import describe_exception, to_device

# --------------------------------------------------------------------------- the training loop


class TinyNet(nn.Module):
    """The model the training-loop check trains: Linear, tanh, Linear."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int, dtype=torch.float64):
        super().__init__()
        self.linear1 = nn.Linear(d_in, d_hidden, dtype=dtype)
        self.linear2 = nn.Linear(d_hidden, d_out, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(torch.tanh(self.linear1(x)))


def tiny_net(spec: dict) -> TinyNet:
    net = TinyNet(*spec["sizes"])
    net.load_state_dict(spec["state"])
    return net


def make_optimizer(spec: dict, params) -> torch.optim.Optimizer:
    if spec["optimizer"] == "sgd":
        return torch.optim.SGD(params, lr=spec["lr"], momentum=spec.get("momentum", 0.0))
    return torch.optim.Adam(params, lr=spec["lr"])


class LossArgsSwapped(Exception):
    """Raised by the check's loss_fn when it is called with the targets first."""


def run_training_loop(ex, probe, candidate, device):
    """Build the tiny model and its optimizer from the probe, hand them to the learner's
    loop, and return what it returned, the parameters after, and the number of loss calls."""
    spec, batches = probe.kwargs["spec"], probe.kwargs["batches"]
    model = tiny_net(spec).to(device).eval()  # the loop should switch to train mode
    opt = make_optimizer(spec, model.parameters())
    data = [tuple(to_device(b, device)) for b in batches]
    calls = []
    train_mode = []

    def loss_fn(outputs, targets):
        calls.append(1)
        train_mode.append(model.training)
        if isinstance(outputs, torch.Tensor) and not outputs.is_floating_point():
            raise LossArgsSwapped  # the class ids came first: loss_fn(targets, outputs)
        return F.cross_entropy(outputs, targets)

    try:
        value = candidate(
            model, iter(data) if probe.kwargs.get("generator") else data, opt, loss_fn
        )
    except LossArgsSwapped:
        return {"value": None, "args_swapped": True}
    except RuntimeError as exc:
        if "does not require grad" in str(exc):
            return {"value": None, "no_graph": True}
        if "modified by an inplace operation" not in str(exc):
            raise
        return {"value": None, "inplace_error": True}
    if isinstance(value, float) and not isinstance(value, torch.Tensor):
        value = float(value)  # a NumPy float is a float too
    return {
        "value": value,
        "parameters": [p.detach() for p in model.parameters()],
        "loss_calls": len(calls),
        "train_mode": all(train_mode),
    }


# --------------------------------------------------------------------------- greedy decoding


class ScriptedSeq2Seq(nn.Module):
    """A stand-in for a trained model: ``model(src, tgt) -> logits (B, T, vocab_size)``.

    At position t, row b scores ``script[b, t]`` highest when ``tgt[b, :t+1]`` is BOS followed
    by ``script[b, :t]`` (the decoder has been fed its own greedy choices), and ``wrong_id``
    otherwise. Each position's logits differ, so reading the wrong position shows.
    """

    def __init__(
        self, script: torch.Tensor, src: torch.Tensor, vocab_size: int, bos_id: int, wrong_id: int
    ):
        super().__init__()
        self.register_buffer("script", script.clone())  # (B, L): row b's tokens
        self.register_buffer("src", src.clone())  # (B, S): the source row that selects script b
        self.vocab_size, self.bos_id, self.wrong_id = vocab_size, bos_id, wrong_id
        self.scale = nn.Parameter(torch.ones(()))  # a parameter, so model.parameters() has a device

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        B, T = tgt.shape
        if src.shape[0] != B:
            raise ValueError(f"src has {src.shape[0]} rows but tgt has {B}")
        if T > self.script.shape[1]:
            raise ValueError(f"the decoder input is longer ({T}) than the model can take")
        # which rows of the batch these are (a decoder may run on one row at a time, src[b:b+1])
        same = (src[:, None, :] == self.src[None, :, :]).all(-1)  # (B, B_all)
        if not bool(same.any(-1).all()):
            raise ValueError("src holds a row that is not one of the batch's source rows")
        script = self.script[same.long().argmax(-1)]  # (B, L)
        bos = torch.full((B, 1), self.bos_id, dtype=torch.long, device=tgt.device)
        expected = torch.cat([bos, script[:, : T - 1]], dim=1)  # (B, T)
        ok = (tgt == expected).long().cumprod(dim=1).bool()  # the prefix up to t is right
        nxt = torch.where(ok, script[:, :T], torch.full_like(tgt, self.wrong_id))
        # a margin of 1 only: the best token has probability ~0.25, so sampling shows
        logits = F.one_hot(nxt, self.vocab_size).float()  # (B, T, vocab_size)
        # a small position-dependent tilt, so that each position's row is different
        tilt = torch.arange(self.vocab_size, device=tgt.device).float() * 0.01
        return self.scale * (
            logits + tilt * torch.arange(T, device=tgt.device).float()[:, None] / T
        )


def scripted_model(spec: dict) -> ScriptedSeq2Seq:
    return ScriptedSeq2Seq(
        spec["script"], spec["src"], spec["vocab_size"], spec["bos_id"], spec["wrong_id"]
    )


def run_decode(ex, probe, candidate, device):
    model = scripted_model(probe.kwargs["model"]).to(device).eval()
    src, max_len, bos_id, eos_id = probe.args
    return candidate(model, src.to(device), max_len, bos_id, eos_id)


# --------------------------------------------------------------------------- KV cache


def run_kv_decode(ex, probe, candidate, device):
    """Feed the candidate one token at a time, starting from cache=None, as a decoder would."""
    q, k, v = to_device(probe.args, device)
    cache, outs = None, []
    for t in range(q.shape[-2]):
        step = slice(t, t + 1)
        try:
            result = candidate(q[..., step, :], k[..., step, :], v[..., step, :], cache)
        except RuntimeError as exc:
            if t == 0:
                raise
            return {"cache_error": describe_exception(exc)}  # only once there is a cache
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return {
                "bad": type(result).__name__
                if not isinstance(result, (tuple, list))
                else f"a tuple of {len(result)}"
            }
        out, cache = result
        outs.append(out)
    return {"outs": outs, "cache": cache}


# --------------------------------------------------------------------------- trained models


def off_contract(candidate, contract: dict[str, str]) -> str | None:
    """Why ``candidate`` is not the model the exercise builds: ``contract`` maps an attribute
    path ("" = the model) to its class name ("" = any); None when it is."""
    for path, cls in contract.items():
        obj = candidate
        for name in filter(None, path.split(".")):
            obj = getattr(obj, name, None)
        if obj is None:
            return f"it has no `{path}`"
        if cls and cls not in {c.__name__ for c in type(obj).__mro__}:
            return f"{f'its `{path}`' if path else 'it'} is a {type(obj).__name__}, not a {cls}"
    return None


def replaced_code(model: nn.Module) -> str | None:
    """Why the code that runs is not the model's own class's: an instance attribute standing
    in for one of its methods (``model.forward = ...``), or a hook around a forward."""
    from torch.nn.modules import module as torch_module

    for kind in ("_global_forward_hooks", "_global_forward_pre_hooks"):
        if getattr(torch_module, kind, None):
            return "a global forward hook is registered (register_module_forward_hook)"
    for path, sub in model.named_modules():
        where = f"`{path}`" if path else "the model"
        methods = {n for c in type(sub).__mro__ for n, v in vars(c).items() if callable(v)}
        shadowed = sorted(
            n for n, v in vars(sub).items() if n in methods and callable(v) and n[:2] != "__"
        )
        if shadowed:
            return f"{where} has its method {shadowed[0]} replaced by an attribute of its own"
        if any(getattr(sub, h, None) for h in ("_forward_hooks", "_forward_pre_hooks")):
            return f"{where} has a forward hook"
    return None


def _logits(model: nn.Module, inputs: torch.Tensor):
    first = next(model.parameters(), None)  # none: nothing learned, shuffling changes nothing
    device = first.device if first is not None else torch.device("cpu")
    with torch.no_grad():
        return model(inputs.to(device))


def _with_shuffled_weights(model: nn.Module, inputs: torch.Tensor):
    """The model's output with each parameter's entries shuffled (the same values, no learned
    structure), then its own weights back: a model whose answers come from its training falls to
    chance; one that ignores its weights does not."""
    gen = torch.Generator().manual_seed(0)
    params = [p for p in model.parameters() if p.numel() > 1]
    kept = [p.detach().clone() for p in params]
    try:
        with torch.no_grad():
            for p in params:
                order = torch.randperm(p.numel(), generator=gen).to(p.device)
                p.copy_(p.flatten()[order].view_as(p))
        return _logits(model, inputs)
    finally:
        with torch.no_grad():
            for p, k in zip(params, kept):
                p.copy_(k)


def predict_argmax(candidate, inputs: torch.Tensor, contract: dict | None = None):
    """The runner of a trained-model exercise (runs in the learner's kernel): the candidate in
    eval mode on ``inputs`` moved to the model's device, argmax of the last dimension, as a CPU
    LongTensor ``{"predictions"}``, and the same with its weights shuffled (``"shuffled"``). A
    candidate that is not an nn.Module, not the model of the ``contract``, one whose code is not
    its class's own (replaced_code), or an output that is not a tensor, comes back as a small
    dict the judge reports."""
    if not isinstance(candidate, nn.Module):
        kind = "class" if isinstance(candidate, type) else "object"
        return {
            "not_a_module": f"{kind} {getattr(candidate, '__name__', type(candidate).__name__)}"
        }
    reason = off_contract(candidate, contract or {})
    if reason:
        return {"not_the_model": reason}
    reason = replaced_code(candidate)
    if reason:
        return {"not_its_own_code": reason}
    was_training = candidate.training
    candidate.eval()
    try:
        logits = _logits(candidate, inputs)
        shuffled = _with_shuffled_weights(candidate, inputs)
    finally:
        candidate.train(was_training)
    for out in (logits, shuffled):
        if not isinstance(out, torch.Tensor):
            return {"output_type": type(out).__name__}
    return {
        "predictions": logits.argmax(dim=-1).long().cpu(),
        "shuffled": shuffled.argmax(dim=-1).long().cpu(),
        "state": weights_of(candidate),
    }


def weights_of(model: nn.Module) -> dict[str, torch.Tensor]:
    """The model's parameters and buffers by name, as nn.Module itself lists them (a class's
    own ``state_dict`` is not asked), on the CPU."""
    named = [*nn.Module.named_parameters(model), *nn.Module.named_buffers(model)]
    return {name: t.detach().cpu() for name, t in named}


def run_predict(ex, probe, candidate, device):
    return predict_argmax(candidate, probe.args[0], probe.kwargs.get("contract"))
