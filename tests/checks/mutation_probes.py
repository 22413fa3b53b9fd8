"""Where each exercise's reference lives, and one seeded probe per exercise (for mutation.py).

SOURCES is derived from the registry; PROBES holds the probes written by hand, and an exercise
without one gets the check's own cases for other seeds (:func:`probe_for`).

A probe runs a candidate (function or class) on small seeded inputs and returns everything it
produced (tensors, floats, nested lists): two candidates that behave alike on the probe give
equal results. Modules get the same random parameters (seeded, then loaded by name), and run
in eval mode and in train mode with the same dropout seed, so dropout slips show too.
"""

import math
from pathlib import Path

import torch
from torch import nn
from torch.utils._pytree import tree_leaves

from helpers import blocks
from helpers.checks import EXERCISES
from helpers.checks.run.runner import run_probe

ROOT = Path(__file__).resolve().parents[2]


def _source(ex) -> tuple[str, str, str] | None:
    """Where ``ex``'s reference lives: ("module", dotted module, name) in helpers/blocks,
    ("notebook", solved notebook, name) else; None for a trained model or a question's answer
    (nothing to mutate)."""
    if ex.kind in ("trained", "question"):
        return None
    name = ex.grade_target or ex.id.split(".", 1)[1]
    found = getattr(blocks, name, None)
    if found is not None:
        return ("module", found.__module__, name)
    (notebook,) = ROOT.glob(f"solutions/{ex.notebook}_*.ipynb")
    return ("notebook", f"solutions/{notebook.name}", name)


#: exercise id -> where its reference lives (derived from the registry and helpers/blocks)
SOURCES = {i: where for i, ex in sorted(EXERCISES.items()) if (where := _source(ex))}


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape, seed=0, scale=1.0):
    return torch.randn(*shape, generator=_gen(seed), dtype=torch.float64).float() * scale


def _module(cls, args, kwargs=None):
    """Build cls(*args) with seeded, randomized parameters (the same for every candidate)."""
    torch.manual_seed(0)
    m = cls(*args, **(kwargs or {}))
    g = _gen(1)
    with torch.no_grad():
        for _, p in sorted(m.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g) * 0.5 + (1.0 if p.dim() == 1 else 0.0))
    return m


def _both_modes(m, fn):
    """fn(m) in eval mode, then in train mode with a fixed dropout seed."""
    m.eval()
    out = [fn(m)]
    m.train()
    torch.manual_seed(123)
    out.append(fn(m))
    return out


def _mask(shape, seed):
    mask = torch.rand(shape, generator=_gen(seed)) > 0.3
    mask[..., 0] = True  # every query keeps one key
    return mask


def probe_relu(f):
    return f(_randn(3, 4))


def probe_softmax(f):
    x = _randn(2, 3, 5, scale=3)
    return [f(x), f(x, dim=1), f(x * 300)]


def probe_dot(f):
    return f(_randn(2, 4, 6))


def probe_sdpa(f):
    q, k, v = _randn(2, 3, 4, 8, seed=1), _randn(2, 3, 6, 8, seed=2), _randn(2, 3, 6, 5, seed=3)
    return [f(q, k, v), f(q, k, v, _mask((2, 1, 4, 6), 4))]


def probe_causal(f):
    return [f(5), f(1)]


def probe_padding(f):
    tokens = torch.randint(0, 4, (3, 7), generator=_gen(5))
    return [f(tokens, 0), f(tokens, 2)]


def probe_mha(cls):
    m = _module(cls, (16, 4), {"dropout": 0.3})
    x, mem = _randn(2, 5, 16, seed=1), _randn(2, 7, 16, seed=2)
    mask = _mask((2, 1, 5, 7), 3)
    return _both_modes(m, lambda m: [m(x), m(x, mem), m(x, mem, mask=mask), m(x, mem, mem * 2)])


def probe_sinusoidal(f):
    return [f(12, 8), f(3, 6)]


def probe_posenc(cls):
    m = _module(cls, (8,), {"max_len": 20, "dropout": 0.2})
    x = _randn(2, 6, 8)
    return _both_modes(m, lambda m: m(x.clone()))


def probe_layernorm(cls):
    m = _module(cls, (8,))
    return m(_randn(2, 5, 8, scale=2) + 1)


def probe_ffn(cls):
    out = []
    x = _randn(2, 5, 8)
    for act in ("relu", "gelu"):
        m = _module(cls, (8, 16), {"dropout": 0.2, "activation": act})
        out += _both_modes(m, lambda m: m(x))
    return out


def probe_encoder_block(cls):
    out, x, mask = [], _randn(2, 5, 8), _mask((2, 1, 1, 5), 2)
    for norm_first in (True, False):
        m = _module(cls, (8, 2, 16), {"dropout": 0.2, "norm_first": norm_first})
        out += _both_modes(m, lambda m: [m(x), m(x, mask)])
    return out


def probe_encoder(cls):
    out, tokens = [], torch.randint(0, 11, (2, 6), generator=_gen(3))
    for norm_first in (True, False):
        m = _module(
            cls, (11, 8, 2, 2, 16), {"max_len": 32, "dropout": 0.2, "norm_first": norm_first}
        )
        out += _both_modes(m, lambda m: [m(tokens), m.attention_maps(tokens), m.embed(tokens)])
    return out


def probe_train(f):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.2), nn.Linear(4, 2))
    model.eval()  # the exercise must switch it to train mode
    xs, ys = _randn(11, 3, seed=1), _randn(11, 2, seed=2)
    batches = [(xs[:4], ys[:4]), (xs[4:8], ys[4:8]), (xs[8:], ys[8:])]  # uneven last batch
    opt = torch.optim.SGD(model.parameters(), lr=0.3)
    loss = f(model, batches, opt, nn.MSELoss())
    return [float(loss), [p.detach().clone() for p in model.parameters()], model.training]


class _TableModel(nn.Module):
    """model(src, tgt) -> (B, T, V) logits from a fixed table: rows end at different steps."""

    def __init__(self, vocab=6):
        super().__init__()
        self.register_buffer("table", torch.randn(17, vocab, generator=_gen(7)))

    def forward(self, src, tgt):
        key = (src.sum(1, keepdim=True) + tgt.cumsum(1) * 3) % self.table.size(0)  # (B, T)
        return self.table[key]


def probe_greedy(f):
    src = torch.randint(0, 9, (5, 4), generator=_gen(8))
    model = _TableModel()
    return [f(model, src, 9, 0, 1), f(model, src, 3, 0, 1), f(model, src, 9, 0, 2)]


def probe_blockwise(f):
    q, k, v = _randn(2, 5, 8, seed=1), _randn(2, 19, 8, seed=2), _randn(2, 19, 6, seed=3)
    return [f(q, k, v, block_size=4), f(q * 6, k * 6, v, block_size=4), f(q, k, v)]


def probe_window(f):
    return [f(7, 2), f(7, 2, causal=True), f(5, 0)]


def probe_linear(f):
    q, k, v = _randn(2, 5, 4, seed=1), _randn(2, 5, 4, seed=2), _randn(2, 5, 3, seed=3)
    return [f(q, k, v), f(q, k, v, causal=True), f(q[:, :3], k, v)]


def probe_kv(f):
    outs, cache = [], None
    for t in range(4):
        q, k, v = (_randn(2, 2, 1, 4, seed=10 * t + i) for i in range(3))
        out, cache = f(q, k, v, cache)
        outs.append(out)
    return [outs, list(cache)]


def probe_patchify(f):
    return [f(_randn(2, 3, 8, 8), 4), f(_randn(1, 1, 6, 6, seed=1), 3)]


def probe_patch_embed(cls):
    m = _module(cls, (8, 4, 3, 16))
    return m(_randn(2, 3, 8, 8))


def probe_vit(cls):
    m = _module(cls, (8, 4, 1, 5, 16, 2, 2, 32), {"dropout": 0.2})
    images = _randn(2, 1, 8, 8)
    return _both_modes(m, lambda m: [m(images), m.attention_maps(images)])


PROBES = {
    "00.relu": probe_relu,
    "01.softmax": probe_softmax,
    "01.dot_product_attention": probe_dot,
    "02.scaled_dot_product_attention": probe_sdpa,
    "02.causal_mask": probe_causal,
    "02.padding_mask": probe_padding,
    "03.MultiHeadAttention": probe_mha,
    "04.sinusoidal_positional_encoding": probe_sinusoidal,
    "04.PositionalEncoding": probe_posenc,
    "05.LayerNorm": probe_layernorm,
    "05.FeedForward": probe_ffn,
    "05.TransformerEncoderBlock": probe_encoder_block,
    "06.TransformerEncoder": probe_encoder,
    "06.train_one_epoch": probe_train,
    "07.TransformerDecoderBlock": None,  # set below (needs the decoder's arguments)
    "07.greedy_decode": probe_greedy,
    "08.blockwise_attention": probe_blockwise,
    "08.sliding_window_mask": probe_window,
    "08.linear_attention": probe_linear,
    "08.kv_cache_step": probe_kv,
    "09.patchify": probe_patchify,
    "09.PatchEmbedding": probe_patch_embed,
    "09.VisionTransformer": probe_vit,
}


def probe_decoder_block(cls):
    out, x, mem = [], _randn(2, 5, 8, seed=1), _randn(2, 7, 8, seed=2)
    tgt_mask = torch.ones(5, 5, dtype=torch.bool).tril()
    mem_mask = _mask((2, 1, 1, 7), 3)
    for norm_first in (True, False):
        m = _module(cls, (8, 2, 16), {"dropout": 0.2, "norm_first": norm_first})
        out += _both_modes(m, lambda m: [m(x, mem), m(x, mem, tgt_mask, mem_mask)])
    return out


PROBES["07.TransformerDecoderBlock"] = probe_decoder_block


def probe_by_check(exercise: str):
    """The probe of an exercise with none written above: the check's own cases for three seeds
    other than the inline check's, run as the check runs them (on the CPU); every value,
    flattened. An error raised on a case is raised (the mutant is a crash, not checked, as with
    a probe written by hand)."""
    ex = EXERCISES[exercise]

    def probe(obj):
        out = []
        for seed in (1, 2, 3):
            for case in ex.probes(torch.Generator().manual_seed(seed)):
                outcome = run_probe(ex, case, obj, torch.device("cpu"))
                if outcome.error is not None:  # a crash, as a hand-written probe's would be
                    raise RuntimeError(outcome.error.splitlines()[0])
                out += tree_leaves(outcome.value)
        return out

    return probe


def probe_for(exercise: str):
    """The seeded probe of ``exercise``: its own (PROBES), else the check's cases
    (:func:`probe_by_check`), so that a new exercise is mutation-tested with no entry here."""
    return PROBES.get(exercise) or probe_by_check(exercise)


def same(a, b, rtol=1e-4, atol=1e-5) -> bool:
    """Structural equality with a float tolerance (NaN equals NaN)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
            return False
        if a.dtype == torch.bool or not a.is_floating_point():
            return bool(torch.equal(a, b))
        return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b
