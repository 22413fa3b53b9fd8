"""Checks of notebook 05: the solution passes, the stub is 'not implemented', mistakes are named."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks.references import block64
from helpers.checks.weights import block_state, to_torch_names, torch_layer, torch_masks

from .conftest import stub

# --------------------------------------------------------------------------- LayerNorm


def make_layer_norm(normalize=None, init_weight=torch.ones, affine=lambda y, w, b: y * w + b):
    def default(x, eps):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps)

    normalize = normalize or default

    class LayerNorm(nn.Module):
        def __init__(self, d_model, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(init_weight(d_model))
            self.bias = nn.Parameter(torch.zeros(d_model))

        def forward(self, x):
            return affine(normalize(x, self.eps), self.weight, self.bias)

    return LayerNorm


def test_layer_norm_solution_passes(run_check):
    r = run_check("05.LayerNorm", make_layer_norm())
    assert r.passed and r.points == r.max_points == 2


def test_layer_norm_written_differently_passes(run_check):
    def rsqrt_var(x, eps):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return (x - mean) * torch.rsqrt(var + eps)

    assert run_check("05.LayerNorm", make_layer_norm(rsqrt_var)).passed


def test_layer_norm_stub(run_check):
    r = run_check(
        "05.LayerNorm", make_layer_norm(lambda x, eps: (_ for _ in ()).throw(NotImplementedError))
    )
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "normalize, words",
    [
        (
            lambda x, eps: (
                (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + eps)
            ),
            "variance is unbiased",
        ),
        (
            lambda x, eps: (
                (x - x.mean(-1, keepdim=True))
                / (x.var(-1, keepdim=True, unbiased=False).sqrt() + eps)
            ),
            "eps is added outside the square root",
        ),
        (
            lambda x, eps: (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + eps),
            "x.std() + eps",
        ),
        (lambda x, eps: F.layer_norm(x, x.shape[-1:], eps=eps), "switched off"),
        (lambda x, eps: torch.layer_norm(x, x.shape[-1:], eps=eps), "switched off"),
    ],
)
def test_layer_norm_mistakes(run_check, normalize, words):
    r = run_check("05.LayerNorm", make_layer_norm(normalize))
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_layer_norm_parameter_mistakes(run_check):
    r = run_check("05.LayerNorm", make_layer_norm(init_weight=torch.zeros))
    assert "initialized to zeros" in r.messages[0], r.messages

    class Named(nn.Module):
        def __init__(self, d_model, eps=1e-5):
            super().__init__()
            self.gamma = nn.Parameter(torch.ones(d_model))
            self.beta = nn.Parameter(torch.zeros(d_model))

    r = run_check("05.LayerNorm", Named)
    assert "no parameter `weight`" in r.messages[0] and "gamma" in r.messages[0], r.messages


def test_layer_norm_subclassing_nn_layer_norm_is_caught(run_check):
    class Sneaky(nn.LayerNorm):
        def __init__(self, d_model, eps=1e-5):
            super().__init__(d_model, eps=eps)

    r = run_check("05.LayerNorm", Sneaky)
    assert not r.passed and "switched off" in r.messages[0], r.messages


# --------------------------------------------------------------------------- FeedForward


def make_ffn(body=None):
    class FeedForward(nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
            super().__init__()
            self.linear1 = nn.Linear(d_model, d_ff)
            self.linear2 = nn.Linear(d_ff, d_model)
            self.dropout = nn.Dropout(dropout)
            self.activation = {"relu": F.relu, "gelu": F.gelu}[activation]

        def forward(self, x):
            if body is not None:
                return body(self, x)
            return self.linear2(self.dropout(self.activation(self.linear1(x))))

    return FeedForward


def test_ffn_solution_passes(run_check):
    r = run_check("05.FeedForward", make_ffn())
    assert r.passed and r.points == 2


def test_ffn_sequential_passes(run_check):
    class FeedForward(nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
            super().__init__()
            self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
            self.act = nn.GELU() if activation == "gelu" else nn.ReLU()
            self.drop = nn.Dropout(dropout)

        def forward(self, x):
            return self.linear2(self.drop(self.act(self.linear1(x))))

    assert run_check("05.FeedForward", FeedForward).passed


def test_ffn_stub(run_check):
    r = run_check(
        "05.FeedForward", make_ffn(lambda self, x: (_ for _ in ()).throw(NotImplementedError))
    )
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def test_ffn_swapped_sizes(run_check):
    class FeedForward(nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
            super().__init__()
            self.linear1, self.linear2 = nn.Linear(d_ff, d_model), nn.Linear(d_model, d_ff)

    r = run_check("05.FeedForward", FeedForward)
    assert "linear1 maps d_model -> d_ff" in r.messages[0], r.messages


# --------------------------------------------------------------------------- the block


class TinyMHA(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.h = num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Linear(d_model, d_model) for _ in range(4)
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        B, T, d = query.shape
        q, k, v = (
            p(query).view(B, T, self.h, -1).transpose(1, 2)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )
        s = q @ k.transpose(-2, -1) / math.sqrt(d // self.h)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        w = self.dropout(s.softmax(-1))
        return self.out_proj((w @ v).transpose(1, 2).reshape(B, T, d)), w


def make_block(step=None):
    """``step(self, x, mask)`` replaces the forward; the default is the right one."""
    LN = make_layer_norm()

    class FFN(make_ffn()):
        """The feed-forward sublayer followed by the block's dropout2 (a child without
        parameters, so the names stay those of the contract)."""

        def __init__(self, d_model, d_ff, dropout, activation):
            super().__init__(d_model, d_ff, dropout, activation)
            self.dropout2 = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout2(super().forward(x))

    class TransformerEncoderBlock(nn.Module):
        def __init__(
            self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"
        ):
            super().__init__()
            self.self_attn = TinyMHA(d_model, num_heads, dropout)
            self.ffn = FFN(d_model, d_ff, dropout, activation)
            self.norm1, self.norm2 = LN(d_model), LN(d_model)
            self.dropout1 = nn.Dropout(dropout)
            self.norm_first = norm_first

        def sa(self, h, mask):
            return self.dropout1(self.self_attn(h, mask=mask)[0])

        def forward(self, x, mask=None):
            if step is not None:
                return step(self, x, mask)
            if self.norm_first:
                x = x + self.sa(self.norm1(x), mask)
                return x + self.ffn(self.norm2(x))
            x = self.norm1(x + self.sa(x, mask))
            return self.norm2(x + self.ffn(x))

    return TransformerEncoderBlock


def pre(self, x, mask):
    x = x + self.sa(self.norm1(x), mask)
    return x + self.ffn(self.norm2(x))


def post(self, x, mask):
    x = self.norm1(x + self.sa(x, mask))
    return self.norm2(x + self.ffn(x))


def test_reference_formula_equals_torch_layer():
    gen = torch.Generator().manual_seed(0)
    for norm_first in (True, False):
        init = {"d_model": 8, "num_heads": 2, "d_ff": 16, "norm_first": norm_first}
        layer = nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first
        )
        state = block_state(gen, 8, 16)
        assert set(to_torch_names(state)) == set(layer.state_dict())
        x = torch.randn(2, 5, 8, generator=gen, dtype=torch.float64)
        mask = torch.ones(5, 5, dtype=torch.bool).tril()
        ref = torch_layer(init, state)(x, **torch_masks(mask, 5))
        assert torch.allclose(
            ref, block64(state, x, 2, norm_first=norm_first, mask=mask), atol=1e-10
        )


def test_block_solution_passes(run_check):
    r = run_check("05.TransformerEncoderBlock", make_block())
    assert r.passed and r.points == r.max_points == 3, r.messages


def test_block_written_differently_passes(run_check):
    def branches(self, x, mask):
        def attn_block(h):
            return F.dropout(self.self_attn(h, h, h, mask)[0], self.dropout1.p, self.training)

        if self.norm_first:
            h = x + attn_block(self.norm1(x))
            return h + self.ffn(self.norm2(h))
        h = self.norm1(x + attn_block(x))
        return self.norm2(h + self.ffn(h))

    assert run_check("05.TransformerEncoderBlock", make_block(branches)).passed


def test_block_that_adds_into_its_input_is_named(run_check):
    """``x += ...`` writes into the caller's tensor: named for a module as for a function."""

    def in_place(self, x, mask):
        if self.norm_first:
            h = self.norm1(x)
            x += self.dropout1(self.self_attn(h, h, h, mask)[0])
            x += self.ffn(self.norm2(x))
            return x
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.ffn(x))

    r = run_check("05.TransformerEncoderBlock", make_block(in_place))
    assert r.mistake == "05.TransformerEncoderBlock/changes_input", r.messages


def test_block_stub(run_check):
    r = run_check(
        "05.TransformerEncoderBlock",
        make_block(lambda s, x, m: (_ for _ in ()).throw(NotImplementedError)),
    )
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "step, words",
    [
        (pre, "norm_first is ignored: with norm_first=False"),
        (
            lambda self, x, mask: (pre if self.norm_first else post)(
                self, x, ~mask if mask is not None and mask.dim() == 2 else mask
            ),
            "NaN comes from a row with no key allowed",
        ),
    ],
)
def test_block_mistakes(run_check, step, words):
    r = run_check("05.TransformerEncoderBlock", make_block(step))
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_block_wrong_names(run_check):
    class Block(nn.Module):
        def __init__(
            self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"
        ):
            super().__init__()
            self.attn = TinyMHA(d_model, num_heads)
            self.ffn = make_ffn()(d_model, d_ff)
            self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)

    r = run_check("05.TransformerEncoderBlock", Block)
    assert (
        "no parameter `self_attn.q_proj.weight`" in r.messages[0]
        and "MultiHeadAttention" in r.messages[0]
    )


# --------------------------------------------------------------------------- training mode, codes


def test_reference_block_with_fixed_dropout_equals_torch_layer_in_training_mode():
    """block64's dropout placements are nn.TransformerEncoderLayer's: both in training mode with
    the check's fixed masks (PyTorch's self-attention asked for its weights, so that its
    dropout goes through F.dropout, which the fixed masks replace)."""
    from helpers.checks.run.modules import dropout_fixed, fixed_dropout

    gen = torch.Generator().manual_seed(4)
    for norm_first in (True, False):
        state = block_state(gen, 8, 16)
        init = {"d_model": 8, "num_heads": 2, "d_ff": 16, "norm_first": norm_first}
        layer = torch_layer(init, state)
        for m in (layer.dropout, layer.dropout1, layer.dropout2):
            m.p = 0.5
        layer.self_attn.dropout = 0.5
        forward = layer.self_attn.forward
        layer.self_attn.forward = lambda *a, _f=forward, **k: _f(*a, **{**k, "need_weights": True})
        x = torch.randn(2, 6, 8, generator=gen, dtype=torch.float64)
        with dropout_fixed(11) as calls, torch.no_grad():
            ref = layer(x)
        assert len(calls) == 4
        ours = block64(
            state, x, 2, norm_first=norm_first, dropout=lambda t: fixed_dropout(t, 0.5, 11)
        )
        torch.testing.assert_close(ours, ref, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize(
    "exercise, name, code",
    [
        ("03.MultiHeadAttention", "dropout_on_output", "dropout_on_output"),
        ("03.MultiHeadAttention", "value_defaults_to_query", "value_defaults_to_query"),
        ("03.MultiHeadAttention", "nanogpt_always_causal", "always_causal"),
        ("03.MultiHeadAttention", "d2l_lazy_linear", "lazy_layers"),
        ("04.sinusoidal_positional_encoding", "base_1000", "wrong_base"),
        ("04.sinusoidal_positional_encoding", "float64", "wrong_dtype"),
        ("04.PositionalEncoding", "pe_not_sliced", "pe_not_sliced"),
        ("04.PositionalEncoding", "pytorch_tutorial_sequence_first", "sliced_by_batch"),
        ("04.PositionalEncoding", "dropout_before_adding_pe", "dropout_before_adding_pe"),
        ("04.PositionalEncoding", "no_dropout", "no_dropout"),
        ("05.LayerNorm", "annotated_transformer_std_unbiased_eps_outside", "std_plus_eps"),
    ],
)
def test_mistake_codes(run_check, exercise, name, code):
    """The catalogue's wrong versions (tests/checks/wrong) carry stable mistake codes."""
    from .wrong import test_nb03_05 as catalogue

    cases = catalogue.test_wrong_version_fails_with_named_message.pytestmark[0].args[1]
    (candidate,) = [c.values[1] for c in cases if c.id == f"{exercise}-{name}"]
    r = run_check(exercise, candidate)
    assert not r.passed and r.mistake == f"{exercise}/{code}", (r.mistake, r.messages)


# --------------------------------------------------------------------------- issue 18


def _layer_norm(mode):
    from helpers.blocks.layers import LayerNorm as Reference

    class LayerNorm(Reference):
        def forward(self, x):
            m = x.mean(-1, keepdim=True)
            var = ((x - m) ** 2).mean(-1, keepdim=True)
            x_hat = (x - m) / torch.sqrt(var + (1e-6 if mode == "fixed_eps_1e-6" else self.eps))
            return x_hat * self.weight + self.bias

    return LayerNorm


@pytest.mark.parametrize(
    "mode, code",
    [
        ("two_pass", None),
        ("fixed_eps_1e-6", "eps_ignored"),  # was told "eps is added outside the square root"
    ],
)
def test_layer_norm_unseen_mistakes_named(run_check, mode, code):
    r = run_check("05.LayerNorm", _layer_norm(mode))
    assert r.passed if code is None else r.mistake == f"05.LayerNorm/{code}", r.messages


def test_block_dropout_left_on_in_eval_named(run_check):
    """F.dropout without training=self.training (was blamed on the training-mode case)."""
    from helpers.blocks.layers import TransformerEncoderBlock as Reference

    class TransformerEncoderBlock(Reference):
        def _attn(self, h, mask):
            return F.dropout(self.self_attn(h, mask=mask)[0], self.dropout1.p)  # always on

    r = run_check("05.TransformerEncoderBlock", TransformerEncoderBlock)
    assert r.mistake == "05.TransformerEncoderBlock/dropout_in_eval", r.messages


# --------------------------------------------------------------------------- the ★★★ and questions
# (05.layer_norm_backward's cases: test_nb05_backward.py)


def test_layer_norm_backward_stub(run_check):
    r = run_check("05.layer_norm_backward", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "exercise, right, wrong",
    [
        ("05.q_gradients", "c", ["a", "b", "d"]),
        ("05.q_block_params", 49984, [49152, 49728, 49856, 45824, 33536]),
    ],
)
def test_questions(run_check, exercise, right, wrong):
    r = run_check(exercise, right)
    assert r.passed and r.messages[0].startswith(("without", "49,984")), r.messages
    for answer in wrong:
        r = run_check(exercise, answer)
        assert not r.passed, answer
        assert r.mistake in (f"{exercise}/wrong_choice", f"{exercise}/known_wrong_number")
        assert "49,984" not in r.messages[0] and '"c"' not in r.messages[0], r.messages
    assert run_check("05.q_block_params", 50000).mistake == "05.q_block_params/wrong_number"


def test_the_count_is_a_real_blocks():
    from helpers.blocks.layers import TransformerEncoderBlock

    block = TransformerEncoderBlock(64, 4, 256)
    assert sum(p.numel() for p in block.parameters()) == 49984
