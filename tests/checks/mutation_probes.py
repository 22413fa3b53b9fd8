"""Where each exercise's reference lives, and one seeded probe per exercise (for mutation.py).

A probe runs a candidate (function or class) on small seeded inputs and returns everything it
produced (tensors, floats, nested lists): two candidates that behave alike on the probe give
equal results. Modules get the same random parameters (seeded, then loaded by name), and run
in eval mode and in train mode with the same dropout seed, so dropout slips show too.
"""

import math

import torch
from torch import nn

# exercise id -> ("module", dotted module, name) for helpers/blocks, ("notebook", file, name) else
SOURCES = {
    "00.relu": ("notebook", "solutions/00_welcome.ipynb", "relu"),
    "01.softmax": ("notebook", "solutions/01_dot_product_attention.ipynb", "softmax"),
    "01.dot_product_attention": (
        "notebook",
        "solutions/01_dot_product_attention.ipynb",
        "dot_product_attention",
    ),
    "02.scaled_dot_product_attention": (
        "module",
        "helpers.blocks.attention",
        "scaled_dot_product_attention",
    ),
    "02.causal_mask": ("module", "helpers.blocks.attention", "causal_mask"),
    "02.padding_mask": ("module", "helpers.blocks.attention", "padding_mask"),
    "03.MultiHeadAttention": ("module", "helpers.blocks.multihead", "MultiHeadAttention"),
    "04.sinusoidal_positional_encoding": (
        "module",
        "helpers.blocks.positional",
        "sinusoidal_positional_encoding",
    ),
    "04.PositionalEncoding": ("module", "helpers.blocks.positional", "PositionalEncoding"),
    "05.LayerNorm": ("module", "helpers.blocks.layers", "LayerNorm"),
    "05.FeedForward": ("module", "helpers.blocks.layers", "FeedForward"),
    "05.TransformerEncoderBlock": ("module", "helpers.blocks.layers", "TransformerEncoderBlock"),
    "06.TransformerEncoder": ("module", "helpers.blocks.encoder", "TransformerEncoder"),
    "06.train_one_epoch": (
        "notebook",
        "solutions/06_training_an_encoder.ipynb",
        "train_one_epoch",
    ),
    "07.TransformerDecoderBlock": ("module", "helpers.blocks.decoder", "TransformerDecoderBlock"),
    "07.greedy_decode": ("module", "helpers.blocks.decoder", "greedy_decode"),
    "08.blockwise_attention": ("module", "helpers.blocks.efficient", "blockwise_attention"),
    "08.sliding_window_mask": ("module", "helpers.blocks.efficient", "sliding_window_mask"),
    "08.linear_attention": ("module", "helpers.blocks.efficient", "linear_attention"),
    "08.kv_cache_step": ("module", "helpers.blocks.efficient", "kv_cache_step"),
    "09.patchify": ("module", "helpers.blocks.vit", "patchify"),
    "09.PatchEmbedding": ("module", "helpers.blocks.vit", "PatchEmbedding"),
    "09.VisionTransformer": ("module", "helpers.blocks.vit", "VisionTransformer"),
}


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
