"""Notebook 06: the encoder stack and the training loop.

The encoder is checked against a float64 reference made of PyTorch's own pieces
(``nn.TransformerEncoderLayer``, ``F.layer_norm``) with the probe's weights copied in; the
attention maps against ``nn.MultiheadAttention``'s per-head weights. The training loop runs on
a tiny MLP the runner builds from the probe's weights, and is replayed here by a reference
loop (and by the known wrong loops) in float64.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .framework import (
    Exercise,
    Fail,
    Probe,
    expect_close,
    expect_finite,
    expect_like,
    expect_tensor,
    randint,
    randn,
)
from .modules import (
    block_names,
    block_state,
    expect_names,
    judge_module_info,
    torch_layer,
    torch_masks,
)
from .references import sinusoidal64, substate
from .runner import to_device
from .trained import TrainedModelCheck

# --------------------------------------------------------------------------- the encoder


def encoder_init(
    vocab_size=11, d_model=8, num_heads=2, num_layers=2, d_ff=16, max_len=32, **kw
) -> dict:
    return {
        "vocab_size": vocab_size,
        "d_model": d_model,
        "num_heads": num_heads,
        "num_layers": num_layers,
        "d_ff": d_ff,
        "max_len": max_len,
        **kw,
    }


def encoder_state(gen: torch.Generator, init: dict) -> dict:
    """Random weights under the contract's names (positional table included)."""
    d, d_ff = init["d_model"], init["d_ff"]
    st = {"embedding.weight": randn(init["vocab_size"], d, generator=gen) / math.sqrt(d)}
    st["pos_encoding.pe"] = sinusoidal64(init.get("max_len", 512), d).float()
    for i in range(init["num_layers"]):
        st.update(block_state(gen, d, d_ff, f"layers.{i}."))
    st["norm.weight"] = 1.0 + 0.3 * randn(d, generator=gen)
    st["norm.bias"] = 0.2 * randn(d, generator=gen)
    return st


def torch_layers(init: dict, state: dict, norm_first: bool) -> list[nn.TransformerEncoderLayer]:
    """PyTorch's layers in float64 with layer i's weights (see ``torch_layer``)."""
    layer_init = {**init, "norm_first": norm_first}
    return [
        torch_layer(layer_init, substate(state, f"layers.{i}.")) for i in range(init["num_layers"])
    ]


def encoder64(
    init: dict,
    state: dict,
    tokens: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    norm_first: bool = True,
    scale: str = "sqrt",
    pe: bool = True,
    pe_scaled: bool = False,
    final_norm: bool = True,
    layer_order=None,
    maps: bool = False,
    maps_on: str = "input",
):
    """The encoder in float64, with switches for the known mistakes.

    scale: "sqrt" (right), "none", "inv" (divided by sqrt(d_model)). pe_scaled: the table added
    before the scaling. layer_order: which layer's weights run at each depth (one block repeated).
    maps: return the per-layer (B, H, T, T) weights; maps_on: "input" (right), "raw" (pre-LN
    weights taken on the un-normalized input), "embedding" (every layer fed the embedding).
    """
    d = init["d_model"]
    T = tokens.shape[1]
    x = state["embedding.weight"].double()[tokens]  # (B, T, d_model)
    table = state["pos_encoding.pe"].double()[:T] if pe else 0.0
    factor = {"sqrt": math.sqrt(d), "none": 1.0, "inv": 1 / math.sqrt(d)}[scale]
    x = (x + table) * factor if pe_scaled else x * factor + table
    layers = torch_layers(init, state, norm_first)
    order = layer_order or range(len(layers))
    x0, weights = x, []
    for i in order:
        layer = layers[i]
        h = x0 if maps_on == "embedding" else x
        if maps:
            a = layer.norm1(h) if norm_first and maps_on != "raw" else h
            _, w = layer.self_attn(a, a, a, need_weights=True, average_attn_weights=False)
            weights.append(w)  # (B, H, T, T)
        x = layer(x, **torch_masks(mask, T))
    if maps:
        return weights
    if final_norm:
        x = F.layer_norm(x, (d,), state["norm.weight"].double(), state["norm.bias"].double())
    return x


def encoder_names(init: dict) -> dict[str, list[int]]:
    d = init["d_model"]
    names = {"embedding.weight": [init["vocab_size"], d]}
    for i in range(init["num_layers"]):
        names.update({f"layers.{i}.{k}": v for k, v in block_names(d, init["d_ff"]).items()})
    names.update({"norm.weight": [d], "norm.bias": [d]})
    return names


def load_encoder(candidate, probe: Probe, device: torch.device) -> nn.Module:
    """Build the learner's encoder and load the probe's weights. The positional table is
    loaded only when the learner's module keeps it in its state dict (a persistent buffer)."""
    module = candidate(**probe.init)
    if not isinstance(module, nn.Module):
        return module
    own = module.state_dict()
    state = {k: v for k, v in probe.state.items() if k in own or not k.startswith("pos_encoding.")}
    for key, value in state.items():  # the table may be stored as (max_len, d) or (1, max_len, d)
        if key in own and own[key].numel() == value.numel():
            state[key] = value.reshape(own[key].shape)
    module.load_state_dict(state)
    return module.to(device).eval()


class TransformerEncoderCheck(Exercise):
    id = "06.TransformerEncoder"
    title = "the encoder: embedding, positions, a stack of blocks, a final norm"
    points = 3.0
    kind = "module"
    forbid = (
        "torch.nn.TransformerEncoderLayer.forward",
        "torch.nn.TransformerEncoder.forward",
        "torch.nn.MultiheadAttention.forward",
        "torch.nn.functional.multi_head_attention_forward",
    )

    def probes(self, gen):
        base = encoder_init()
        yield Probe(
            "module_info: TransformerEncoder(vocab_size=11, d_model=8, num_heads=2, "
            "num_layers=2, d_ff=16, max_len=32)",
            runner="module_info",
            init=base,
        )
        yield Probe(
            "2 layers, d_model=8, tokens (2, 5)",
            runner="encoder",
            init=base,
            state=encoder_state(gen, base),
            args=(randint(gen, 0, 11, 2, 5),),
        )
        three = encoder_init(
            vocab_size=7, d_model=12, num_heads=3, num_layers=3, d_ff=20, max_len=16
        )
        yield Probe(
            "3 layers, d_model=12, 3 heads, tokens (3, 6)",
            runner="encoder",
            init=three,
            state=encoder_state(gen, three),
            args=(randint(gen, 0, 7, 3, 6),),
        )
        pad = randint(gen, 1, 11, 2, 7)
        pad[0, 5:] = 0
        pad[1, 6:] = 0
        yield Probe(
            "with a padding mask (B, 1, 1, T), tokens (2, 7)",
            runner="encoder",
            init=base,
            state=encoder_state(gen, base),
            args=(pad,),
            kwargs={"mask": (pad != 0)[:, None, None, :]},
        )
        yield Probe(
            "with a causal mask (T, T), tokens (2, 6)",
            runner="encoder",
            init=base,
            state=encoder_state(gen, base),
            args=(randint(gen, 0, 11, 2, 6),),
            kwargs={"mask": torch.ones(6, 6, dtype=torch.bool).tril()},
        )
        one = encoder_init(num_layers=1, max_len=512)
        one.pop("max_len")  # the default, 512
        yield Probe(
            "1 layer, default max_len, dropout=0.1 in eval mode, tokens (1, 9)",
            runner="encoder",
            init={**one, "dropout": 0.1},
            state=encoder_state(gen, one),
            args=(randint(gen, 0, 11, 1, 9),),
        )
        yield Probe(
            "norm_first=False (post-LN blocks), tokens (2, 5)",
            runner="encoder",
            init={**base, "norm_first": False},
            state=encoder_state(gen, base),
            args=(randint(gen, 0, 11, 2, 5),),
        )
        yield Probe(
            "attention_maps, 2 layers, tokens (2, 5)",
            runner="encoder_maps",
            init=base,
            state=encoder_state(gen, base),
            args=(randint(gen, 0, 11, 2, 5),),
        )
        yield Probe(
            "attention_maps, 3 layers, 3 heads, tokens (1, 6)",
            runner="encoder_maps",
            init=three,
            state=encoder_state(gen, three),
            args=(randint(gen, 0, 7, 1, 6),),
        )

    # the runners (they execute the learner's code; they return plain data)
    def run_encoder(self, probe, candidate, device):
        module = load_encoder(candidate, probe, device)
        if not isinstance(module, nn.Module):
            return module
        with torch.no_grad():
            return module(*to_device(probe.args, device), **to_device(probe.kwargs, device))

    def run_encoder_maps(self, probe, candidate, device):
        module = load_encoder(candidate, probe, device)
        if not isinstance(module, nn.Module):
            return module
        with torch.no_grad():
            return module.attention_maps(*to_device(probe.args, device))

    def judge(self, probe, out):
        if probe.runner == "module_info":
            return judge_module_info(probe, out, "TransformerEncoder", self.judge_info)
        if isinstance(out, dict):  # the class did not build an nn.Module
            raise Fail("TransformerEncoder(...) should build a torch.nn.Module.")
        if probe.runner == "encoder_maps":
            return self.judge_maps(probe, out)
        init, st = probe.init, probe.state
        (tokens,) = probe.args
        mask = probe.kwargs.get("mask")
        norm_first = init.get("norm_first", True)
        B, T = tokens.shape
        got = expect_tensor(out)
        expect_like(got, (B, T, init["d_model"]), torch.float32)
        expect_finite(
            got,
            hint="With a mask, NaN comes from a row with no key allowed: pass the "
            "mask (True = may attend) to every block unchanged.",
        )
        ref = encoder64(init, st, tokens, mask, norm_first=norm_first)

        def v(**kw):
            return lambda: encoder64(init, st, tokens, mask, **{"norm_first": norm_first, **kw})

        mistakes = [
            (
                v(scale="none"),
                "the embedding is not scaled: multiply it by sqrt(d_model) before "
                "adding the positional encoding.",
            ),
            (v(scale="inv"), "the embedding is divided by sqrt(d_model): multiply by it."),
            (
                v(pe_scaled=True),
                "the positional encoding is scaled too: scale the embedding by "
                "sqrt(d_model) first, then add the positions, "
                "pos_encoding(embedding(tokens) * sqrt(d_model)).",
            ),
            (
                v(pe=False),
                "no positional information: pass the scaled embedding through self.pos_encoding.",
            ),
            (
                v(final_norm=False),
                "the final norm is missing: return self.norm(x) after the last "
                "block (pre-LN blocks leave the residual stream unnormalized).",
            ),
        ]
        if init["num_layers"] > 1:
            L = init["num_layers"]
            mistakes += [
                (
                    v(layer_order=[L - 1] * L),
                    "every depth runs the same block: build num_layers "
                    "separate blocks, nn.ModuleList([Block(...) for _ in "
                    "range(num_layers)]), not [block] * num_layers.",
                ),
                (v(layer_order=[0]), "only the first block runs: loop over all of self.layers."),
                (
                    v(layer_order=[L - 1]),
                    "only the last block's output is used: feed each block's "
                    "output to the next one, x = layer(x, mask).",
                ),
            ]
        if mask is not None:
            mistakes.append(
                (
                    lambda: encoder64(init, st, tokens, None, norm_first=norm_first),
                    "the mask is ignored: pass it to every block, x = layer(x, mask).",
                )
            )
            mistakes.append(
                (
                    lambda: encoder64(init, st, tokens, ~mask, norm_first=norm_first),
                    "the mask is inverted: True means may attend.",
                )
            )
        if not norm_first:
            mistakes.append(
                (
                    v(norm_first=True),
                    "norm_first is ignored: pass it to every block, "
                    "TransformerEncoderBlock(..., norm_first=norm_first).",
                )
            )
        expect_close(got, ref, atol=1e-4, mistakes=mistakes)

    def judge_maps(self, probe, out):
        init, st = probe.init, probe.state
        (tokens,) = probe.args
        B, T = tokens.shape
        L, H = init["num_layers"], init["num_heads"]
        if isinstance(out, tuple):
            out = list(out)
        if isinstance(out, torch.Tensor) and out.dim() == 5:
            out = list(out.unbind(0))
        if not isinstance(out, list):
            raise Fail(
                f"attention_maps should return a list with one (B, H, T, T) tensor per "
                f"layer, got {type(out).__name__}"
                + (" (did you forget `return`?)" if out is None else "")
                + "."
            )
        if len(out) != L:
            raise Fail(f"attention_maps returned {len(out)} maps for {L} layers: one per layer.")
        refs = encoder64(init, st, tokens, maps=True)
        raw = encoder64(init, st, tokens, maps=True, maps_on="raw")
        emb = encoder64(init, st, tokens, maps=True, maps_on="embedding")
        for i, (got, ref) in enumerate(zip(out, refs)):
            what = f"the map of layer {i}"
            got = expect_tensor(got, what)
            if tuple(got.shape) == (B, T, T):
                raise Fail(
                    f"{what} has shape {tuple(got.shape)}: keep the heads, (B, H, T, T) "
                    "(MultiHeadAttention returns them per head; do not average)."
                )
            expect_like(got, (B, H, T, T), torch.float32, what)
            expect_finite(got, what)
            expect_close(
                got,
                ref,
                what,
                atol=1e-4,
                mistakes=[
                    (
                        raw[i],
                        f"{what} is taken on the un-normalized input: a pre-LN block attends "
                        "over norm1(x), so call layer.self_attn(layer.norm1(x)).",
                    ),
                    (
                        emb[i],
                        f"{what} is computed on the embedding: run each block, x = layer(x), "
                        "before taking the next layer's map.",
                    ),
                ],
            )

    def judge_info(self, probe, info):
        init = probe.init
        params = info["parameters"]
        if not any(k.startswith("layers.") for k in params):
            raise Fail(
                "TransformerEncoder has no parameters under `layers`: keep the blocks in an "
                "nn.ModuleList (a plain Python list hides them from PyTorch)."
            )
        if "embedding.weight" not in params:
            raise Fail(
                "TransformerEncoder has no `embedding`: self.embedding = "
                "nn.Embedding(vocab_size, d_model)."
            )
        L = init["num_layers"]
        if (
            L > 1
            and not any(k.startswith(f"layers.{L - 1}.") for k in params)
            and any(k.startswith("layers.0.") for k in params)
        ):
            raise Fail(
                f"only layers.0 has parameters: the list holds the same block {L} times "
                "([block] * num_layers shares one set of weights). Build a new block per layer: "
                "nn.ModuleList([TransformerEncoderBlock(...) for _ in range(num_layers)])."
            )
        children = info["children"]
        if children.get("pos_encoding") is None:
            raise Fail(
                "TransformerEncoder has no `pos_encoding`: self.pos_encoding = "
                "PositionalEncoding(d_model, max_len, dropout)."
            )
        expect_names(
            info,
            encoder_names(init),
            "TransformerEncoder",
            {
                "norm.weight": "Add the final norm: self.norm = LayerNorm(d_model).",
                "layers.1.self_attn.q_proj.weight": "Build num_layers separate blocks, "
                "nn.ModuleList("
                "[TransformerEncoderBlock(...) for _ in range(num_layers)]); "
                "[block] * num_layers repeats the same block.",
            },
        )


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


def reference_loop(spec: dict, batches: list, variant: str = "right") -> tuple[float, list]:
    """The loop the exercise asks for, or a known wrong one; returns (value, parameters after).

    A step before backward needs no variant of its own: after zero_grad there is no gradient,
    so the step does nothing ("no_step"); without zero_grad the step changes weights that the
    pending backward still needs, and PyTorch raises (see ``run_training_loop``).
    """
    model = tiny_net(spec).train()
    opt = make_optimizer(spec, model.parameters())
    losses = []
    for x, y in batches:
        if variant != "no_zero_grad":
            opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        if variant == "no_step":
            loss.backward()
        else:
            loss.backward()
            opt.step()
        losses.append(loss.item())
    mean = sum(losses) / len(losses)
    value = {"sum": sum(losses), "last": losses[-1], "first": losses[0]}.get(variant, mean)
    return value, [p.detach().clone() for p in model.parameters()]


class TrainOneEpochCheck(Exercise):
    id = "06.train_one_epoch"
    title = "one epoch of training"
    points = 2.0

    def probes(self, gen):
        def spec(optimizer, lr, **kw):
            sizes = (4, 6, 3)
            net = TinyNet(*sizes)
            state = {
                "linear1.weight": randn(6, 4, dtype=torch.float64, generator=gen) / 2,
                "linear1.bias": 0.3 * randn(6, dtype=torch.float64, generator=gen),
                "linear2.weight": randn(3, 6, dtype=torch.float64, generator=gen) / 2,
                "linear2.bias": 0.3 * randn(3, dtype=torch.float64, generator=gen),
            }
            net.load_state_dict(state)
            return {"sizes": sizes, "state": state, "optimizer": optimizer, "lr": lr, **kw}

        def batches(n, B=5):
            return [
                (randn(B, 4, dtype=torch.float64, generator=gen), randint(gen, 0, 3, B))
                for _ in range(n)
            ]

        yield Probe(
            "SGD(lr=0.5), 4 batches of 5",
            runner="training_loop",
            kwargs={"spec": spec("sgd", 0.5), "batches": batches(4)},
            cpu_only=True,
        )
        yield Probe(
            "SGD(lr=0.3, momentum=0.9), 3 batches, given as a generator (count them as you go)",
            runner="training_loop",
            kwargs={
                "spec": spec("sgd", 0.3, momentum=0.9),
                "batches": batches(3),
                "generator": True,
            },
            cpu_only=True,
        )
        yield Probe(
            "Adam(lr=0.05), 5 batches of 8",
            runner="training_loop",
            kwargs={"spec": spec("adam", 0.05), "batches": batches(5, 8)},
            cpu_only=True,
        )
        yield Probe(
            "SGD(lr=0.2), a single batch",
            runner="training_loop",
            kwargs={"spec": spec("sgd", 0.2), "batches": batches(1)},
            cpu_only=True,
        )

    def run_training_loop(self, probe, candidate, device):
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
            return F.cross_entropy(outputs, targets)

        try:
            value = candidate(
                model, iter(data) if probe.kwargs.get("generator") else data, opt, loss_fn
            )
        except RuntimeError as exc:
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

    def judge(self, probe, out):
        spec, batches = probe.kwargs["spec"], probe.kwargs["batches"]
        n = len(batches)
        if not isinstance(out, dict) or "value" not in out:
            raise Fail("unexpected result from the training loop.")
        if out.get("inplace_error"):
            raise Fail(
                "optimizer.step() runs before loss.backward(): the step changes weights that "
                "the backward pass still needs (PyTorch's 'modified by an inplace operation' "
                "error). Order: zero_grad, forward, backward, step."
            )
        if out["loss_calls"] != n:
            raise Fail(
                f"loss_fn was called {out['loss_calls']} times for {n} batches: compute the "
                "loss once per batch, loss = loss_fn(model(inputs), targets)."
            )
        value = out["value"]
        ref_value, ref_params = reference_loop(spec, batches)
        params = out["parameters"]
        wrong_loops = [
            (
                "no_zero_grad",
                "the gradients are never reset: call optimizer.zero_grad() for every "
                "batch (loss.backward() adds to .grad, so they pile up).",
            ),
            (
                "no_step",
                "the parameters did not change: call optimizer.step() after loss.backward(). "
                "A step before backward, or a zero_grad between backward and step, finds "
                "no gradient to use. Order: zero_grad, forward, backward, step.",
            ),
        ]

        def same(refs):
            return all(
                torch.allclose(p.double(), r, atol=1e-7, rtol=1e-6) for p, r in zip(params, refs)
            )

        if not same(ref_params):
            for variant, message in wrong_loops:
                _, var_params = reference_loop(spec, batches, variant)
                if same(var_params):
                    raise Fail(message)
            raise Fail(
                "the parameters after the epoch differ from one optimizer step per batch "
                "(zero_grad, loss = loss_fn(model(inputs), targets), backward, step)."
            )
        if not out.get("train_mode", True):
            raise Fail(
                "the model was in eval mode during training: call model.train() at the start "
                "(dropout and similar layers behave differently in eval mode)."
            )
        if isinstance(value, torch.Tensor):
            raise Fail(
                "the returned loss is a tensor: return a Python float, add up loss.item() "
                "(a sum of loss tensors also keeps every batch's graph alive)."
            )
        if value is None:
            raise Fail(
                "train_one_epoch returned None: return the mean loss (did you forget `return`?)."
            )
        if not isinstance(value, (int, float)):
            raise Fail(f"the returned value should be a float, got {type(value).__name__}.")
        if math.isclose(value, ref_value, rel_tol=1e-6, abs_tol=1e-9):
            return
        for variant, message in [
            (
                "last",
                "the returned value is the last batch's loss: return the mean over all batches.",
            ),
            (
                "sum",
                "the returned value is the sum of the losses: divide by the number of batches.",
            ),
            (
                "first",
                "the returned value is the first batch's loss: return the mean over all batches.",
            ),
        ]:
            v, _ = reference_loop(spec, batches, variant)
            if n > 1 and math.isclose(value, v, rel_tol=1e-6, abs_tol=1e-9):
                raise Fail(message)
        raise Fail(
            f"the returned value {value:.6g} is not the mean loss over the batches "
            f"({ref_value:.6g}): average each batch's loss.item(), taken before its step."
        )


# --------------------------------------------------------------------------- the trained model


class TrainedEncoderCheck(TrainedModelCheck):
    """The sorting model trained in the notebook (the variable ``model``), judged on fresh
    sequences of 8 digits from ``helpers.data.sort_digits_batch``: token accuracy >= 0.99, the
    notebook's own target. The grader draws its sequences from its secret seed."""

    id = "06.trained_encoder"
    title = "the trained sorting model reaches token accuracy >= 0.99"
    points = 2.0
    grade_target = "model"
    threshold = 0.99
    count, seq_len = 1000, 8

    def held_out(self, gen):
        from helpers.data import sort_digits_batch  # judging side only (not in the grader's kernel)

        x, y = sort_digits_batch(self.count, self.seq_len, gen)
        return f"{self.count} fresh sequences of {self.seq_len} digits", x, y

    def accuracy_label(self, targets):
        return f"the token accuracy on {self.count} fresh sequences"
