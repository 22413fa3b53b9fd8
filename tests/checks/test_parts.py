"""Find the faulty part and carry the error forward (issue 18, items 1 and 2): a notebook 05
whose only mistake is LayerNorm's unbiased variance keeps the encoder block's points, inline
and in the grader, with a message naming LayerNorm; the strict rule gives 0."""

from __future__ import annotations

import torch

from helpers import check
from helpers.blocks import layers

BLOCK = "05.TransformerEncoderBlock"


class UnbiasedLayerNorm(layers.LayerNorm):
    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True)  # unbiased: wrong
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


def block_with(norm, attn_scale: float = 1.0):
    """The course's block with a LayerNorm of the learner's (a class defined here)."""

    class Block(layers.TransformerEncoderBlock):
        def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, **kw):
            super().__init__(d_model, num_heads, d_ff, dropout, norm_first, **kw)
            self.norm1, self.norm2 = norm(d_model), norm(d_model)

        def _attn(self, h, mask):
            return attn_scale * super()._attn(h, mask)

    return Block


for cls in (UnbiasedLayerNorm,):
    cls.__module__ = "learner"  # not the course's block: a part of the learner's


def test_only_layer_norm_wrong_is_carried_forward():
    result = check(BLOCK, block_with(UnbiasedLayerNorm), quiet=True)
    assert result.passed and result.points == 3.0 and result.status == "passed"
    (message,) = result.messages
    assert message.startswith("carried forward from 05.LayerNorm: ")
    assert "your TransformerEncoderBlock is right" in message and "your LayerNorm" in message


def test_strict_rule_fails_and_names_the_part():
    result = check(BLOCK, block_with(UnbiasedLayerNorm), quiet=True, carry_forward=False)
    assert not result.passed and result.points == 0
    assert result.mistake == f"{BLOCK}/faulty_part"
    assert "the difference comes from your LayerNorm (see 05.LayerNorm)" in result.messages[0]


def test_a_fault_in_the_block_itself_is_not_carried():
    """LayerNorm wrong and the attention sublayer scaled: replacing the parts does not fix it."""
    result = check(BLOCK, block_with(UnbiasedLayerNorm, attn_scale=2.0), quiet=True)
    assert not result.passed and "carried forward" not in result.messages[0]


def test_right_parts_of_the_learner_pass_as_before():
    class MyLayerNorm(layers.LayerNorm):
        pass

    MyLayerNorm.__module__ = "learner"
    result = check(BLOCK, block_with(MyLayerNorm), quiet=True)
    assert result.passed and result.messages[0].startswith("passed ")


def test_catalogue_block_on_a_layer_norm_without_bias_is_carried_forward():
    """Was a wrong version with its own code (norm_without_bias): the fault is LayerNorm's."""
    from .wrong.test_nb03_05 import EBNormNoBias

    assert (
        check(BLOCK, EBNormNoBias, quiet=True)
        .messages[0]
        .startswith("carried forward from 05.LayerNorm")
    )
    strict = check(BLOCK, EBNormNoBias, quiet=True, carry_forward=False)
    assert strict.mistake == f"{BLOCK}/faulty_part" and "your LayerNorm" in strict.messages[0]


def test_decoder_block_on_a_feed_forward_with_dropout_last_is_carried_forward():
    """Was a wrong version of 07 (nanogpt_mlp_dropout_after_c_proj): the fault is
    FeedForward's, which 05.FeedForward names (dropout after linear2)."""
    from .wrong.test_nb06_07_more import FFNDropoutLast, decoder_with

    block = decoder_with(ffn=FFNDropoutLast)
    carried = check("07.TransformerDecoderBlock", block, quiet=True)
    assert carried.passed and carried.messages[0].startswith("carried forward from 05.FeedForward")
    strict = check("07.TransformerDecoderBlock", block, quiet=True, carry_forward=False)
    assert not strict.passed and "your FeedForward (see 05.FeedForward)" in strict.messages[0]
    assert "after linear2" in check("05.FeedForward", FFNDropoutLast, quiet=True).messages[0]


MHA = "03.MultiHeadAttention"
SDPA = """
def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / q.size(-1){scale}
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = s.softmax(-1)
    return w @ v, w
"""


def mha_on(sdpa: str, heads_swapped: bool = False):
    """The course's MultiHeadAttention defined in a namespace with the learner's attention."""
    import inspect
    import math

    from helpers.blocks import multihead

    source = inspect.getsource(multihead.MultiHeadAttention)
    if heads_swapped:  # a fault of the module itself: the heads merged in the wrong order
        source = source.replace(".transpose(1, 2).reshape(", ".reshape(")
    ns = {"torch": torch, "nn": torch.nn, "math": math, "__name__": "__main__"}
    exec(sdpa + source, ns)
    return ns["MultiHeadAttention"]


def test_mha_on_a_wrong_attention_function_names_it_and_is_carried_forward():
    mha = mha_on(SDPA.format(scale=" ** 0.5 * 2"))
    result = check(MHA, mha, quiet=True)
    assert result.passed and "carried forward from 02.scaled_dot_product_attention" in str(
        result.messages
    )
    strict = check(MHA, mha, quiet=True, carry_forward=False)
    assert not strict.passed and strict.mistake == f"{MHA}/faulty_part"
    assert "your MultiHeadAttention is right" in strict.messages[0]


def test_mha_on_a_right_attention_function_passes_and_its_own_fault_is_not_carried():
    right = SDPA.format(scale=" ** 0.5")
    assert check(MHA, mha_on(right), quiet=True).messages == ["passed 12 cases"]
    both = check(MHA, mha_on(SDPA.format(scale=""), heads_swapped=True), quiet=True)
    assert not both.passed and "carried" not in str(both.messages)


def test_a_wrong_residual_sum_is_written_out_term_by_term():
    """flow_fault writes the learner's sum in the recorded tensors and names what differs."""
    from helpers.checks.parts import flow_fault

    gen = torch.Generator().manual_seed(0)
    x, attn, ffn = (torch.randn(2, 3, 4, generator=gen, dtype=torch.float64) for _ in range(3))
    flow = {"self_attn.out": attn, "norm2.in": x + attn, "ffn.out": ffn}
    steps = [("out", lambda v: v["norm2.in"] + v["ffn.out"], "wrong output.", "wrong_output")]
    fail = flow_fault(flow, x, x + ffn, steps)
    assert str(fail) == (
        "wrong output. Yours is x + ffn(...), not x + self_attn(...) + ffn(...): "
        "the residual sum leaves out self_attn(...)'s output."
    )
    doubled = str(flow_fault(flow, x, x + 2 * attn + ffn, steps))
    assert doubled.endswith("self_attn(...)'s output is added 2 times.")
    subtracted = str(flow_fault(flow, x, x - attn + ffn, steps))
    assert "Yours is x - self_attn(...) + ffn(...)" in subtracted
    assert subtracted.endswith("self_attn(...)'s output is subtracted.")
    assert flow_fault(flow, x, x + attn + ffn, steps) is None
    # not a sum of the recorded tensors: the words alone
    assert str(flow_fault(flow, x, (x + ffn).tanh(), steps)) == "wrong output."
