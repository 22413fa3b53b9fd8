"""Wrong versions of the module exercises of notebooks 03-05 (issue 12 catalogue).

Each wrong version subclasses the course's reference block and changes one thing, so that the
mistake is the only difference."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers.blocks.attention import scaled_dot_product_attention
from helpers.blocks.layers import FeedForward, LayerNorm, TransformerEncoderBlock
from helpers.blocks.multihead import MultiHeadAttention
from helpers.blocks.positional import PositionalEncoding, sinusoidal_positional_encoding

from ._common import make_tests, right, wrong

# -------------------------------------------------------------------------- 03.MultiHeadAttention

MHA = "03.MultiHeadAttention"


class MHAVariant(MultiHeadAttention):
    """The reference forward with switches for one mistake each."""

    value_default = "key"
    dropout_on = "weights"
    split = "transpose"
    out_proj_used = True
    kv_from_query = False
    scale_model = False
    always_causal = False
    return_weights_before_dropout = False

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = (key if self.value_default == "key" else query) if value is None else value
        if self.kv_from_query:
            key = value = query
        q, k, v = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        q, k, v = (self._split(t) for t in (q, k, v))  # (B, H, T, d_head)
        if self.scale_model:  # divides by sqrt(d_model) instead of sqrt(d_head)
            q = q * math.sqrt(self.d_head) / math.sqrt(self.d_model)
        if self.always_causal:  # nanoGPT's CausalSelfAttention, pasted
            T_q, T_k = q.size(-2), k.size(-2)
            mask = torch.ones(T_q, T_k, dtype=torch.bool, device=q.device).tril()
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        dropped = self.dropout(weights) if self.dropout_on == "weights" else weights
        out = self.merge_heads(dropped @ v)
        if self.out_proj_used:
            out = self.out_proj(out)
        if self.dropout_on == "output":
            out = self.dropout(out)
        return out, (weights if self.return_weights_before_dropout else dropped)

    def _split(self, x):
        B, T, _ = x.shape
        if self.split == "no_transpose":
            return x.view(B, self.num_heads, T, self.d_head)
        return self.split_heads(x)


def mha(**changes):
    return type("MultiHeadAttention", (MHAVariant,), changes)


class MHALazy(MultiHeadAttention):
    """d2l-style: nn.LazyLinear layers, sized at the first call."""

    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__(d_model, num_heads, dropout, bias)
        self.q_proj, self.k_proj = (
            nn.LazyLinear(d_model, bias=bias),
            nn.LazyLinear(d_model, bias=bias),
        )
        self.v_proj, self.out_proj = (
            nn.LazyLinear(d_model, bias=bias),
            nn.LazyLinear(d_model, bias=bias),
        )


class MHAMaskInverted(MultiHeadAttention):
    def forward(self, query, key=None, value=None, mask=None):
        return super().forward(query, key, value, None if mask is None else ~mask)


class MHAFusedQKV(MultiHeadAttention):
    """Correct, written differently: one matmul for q, k, v in self-attention; F.dropout."""

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        if key is query and value is query:
            w = torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight])
            has_bias = self.q_proj.bias is not None
            b = (
                torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias])
                if has_bias
                else None
            )
            q, k, v = F.linear(query, w, b).chunk(3, dim=-1)
        else:
            q, k, v = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        q, k, v = (self.split_heads(t) for t in (q, k, v))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = F.dropout(weights, self.dropout.p, self.training)
        return self.out_proj(self.merge_heads(weights @ v)), weights


class MHAEinsum(MultiHeadAttention):
    """Correct, written differently: einsum on (B, T, H, d_head), -1e9 for blocked keys."""

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, _ = query.shape
        q = self.q_proj(query).view(B, T_q, self.num_heads, self.d_head)
        k = self.k_proj(key).view(B, key.size(1), self.num_heads, self.d_head)
        v = self.v_proj(value).view(B, value.size(1), self.num_heads, self.d_head)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / self.d_head**0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = self.dropout(scores.softmax(-1))
        out = torch.einsum("bhqk,bkhd->bqhd", weights, v).reshape(B, T_q, self.d_model)
        return self.out_proj(out), weights


MHA_WRONG = [
    wrong(
        MHA,
        "dropout_on_output",
        mha(dropout_on="output"),
        "dropout",
    ),
    wrong(MHA, "no_dropout", mha(dropout_on="none"), "dropout"),
    wrong(
        MHA,
        "weights_returned_before_dropout",
        mha(return_weights_before_dropout=True),
        "dropout",
    ),
    wrong(
        MHA,
        "value_defaults_to_query",
        mha(value_default="query"),
        "value",
    ),
    wrong(MHA, "split_without_transpose", mha(split="no_transpose"), "transpose"),
    wrong(MHA, "no_out_proj", mha(out_proj_used=False), "out_proj"),
    wrong(MHA, "key_value_projected_from_query", mha(kv_from_query=True), "key"),
    wrong(MHA, "scaled_by_sqrt_d_model", mha(scale_model=True), "d_head"),
    wrong(
        MHA,
        "nanogpt_always_causal",
        mha(always_causal=True),
        "causal",
    ),
    wrong(MHA, "mask_inverted", MHAMaskInverted, "invert"),
    wrong(
        MHA,
        "d2l_lazy_linear",
        MHALazy,
        "construct",
    ),
]
MHA_OK = [right(MHA, "fused_qkv_F.dropout", MHAFusedQKV), right(MHA, "einsum_-1e9", MHAEinsum)]

# -------------------------------------------------------------- 04.sinusoidal_positional_encoding

SPE = "04.sinusoidal_positional_encoding"


def table(
    first="sin",
    layout="interleaved",
    exponent="2i",
    base=10000.0,
    dtype=torch.float32,
    multiply=False,
    transpose=False,
):
    def sinusoidal_positional_encoding(max_len, d_model):
        pos = torch.arange(max_len, dtype=torch.float64)[:, None]
        i2 = torch.arange(0, d_model, 2, dtype=torch.float64)
        e = (i2 / 2 if exponent == "i" else i2) / d_model
        angles = pos * base**e if multiply else pos / base**e
        a, b = (angles.sin(), angles.cos()) if first == "sin" else (angles.cos(), angles.sin())
        if layout == "halves":  # tensor2tensor style: all sines, then all cosines
            pe = torch.cat([a, b], dim=-1)
        else:
            pe = torch.stack([a, b], dim=-1).flatten(-2)
        pe = pe.to(dtype)
        return pe.T if transpose else pe

    return sinusoidal_positional_encoding


def table_exp_log(max_len, d_model):
    """Correct, written differently: the Annotated Transformer's div_term with exp and log."""
    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


SPE_WRONG = [
    wrong(SPE, "sin_cos_swapped", table(first="cos"), "sin"),
    wrong(SPE, "halves_not_interleaved", table(layout="halves"), "even"),
    wrong(SPE, "exponent_i_not_2i", table(exponent="i"), "2i"),
    wrong(
        SPE,
        "base_1000",
        table(base=1000.0),
        "10000",
    ),
    wrong(SPE, "multiplied_not_divided", table(multiply=True), "divide"),
    wrong(SPE, "float64", table(dtype=torch.float64), "float32"),
    wrong(SPE, "transposed", table(transpose=True), "shape"),
]
SPE_OK = [right(SPE, "annotated_transformer_exp_log", table_exp_log)]

# -------------------------------------------------------------------------- 04.PositionalEncoding

PE = "04.PositionalEncoding"


class PENoDropout(PositionalEncoding):
    def forward(self, x):
        return x + self.pe[: x.size(1)]


class PEDropoutBeforeAdding(PositionalEncoding):
    def forward(self, x):
        return self.dropout(x) + self.pe[: x.size(1)]


class PENotSliced(PositionalEncoding):
    def forward(self, x):
        return self.dropout(x + self.pe)


class PESlicedByBatch(PositionalEncoding):
    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0)].unsqueeze(1))


class PESequenceFirst(nn.Module):
    """The PyTorch tutorial's PositionalEncoding: pe of shape (max_len, 1, d_model), x (T, B, d)."""

    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model).unsqueeze(1))

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0)])


class PETutorialLayout(PESequenceFirst):
    """The tutorial's (max_len, 1, d_model) table, added right to a batch-first x: correct."""

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)].transpose(0, 1))


class PEParameter(PositionalEncoding):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__(d_model, max_len, dropout)
        table_ = self.pe
        del self.pe
        self.pe = nn.Parameter(table_)


class PEPlainAttribute(PositionalEncoding):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__(d_model, max_len, dropout)
        table_ = self.pe
        del self.pe
        self.pe = table_  # not registered: does not move with .to(device), not in state_dict


class PEScaled(PositionalEncoding):
    def forward(self, x):
        return self.dropout(x * math.sqrt(x.size(-1)) + self.pe[: x.size(1)])


class PEFunctionalDropout(PositionalEncoding):
    """Correct, written differently: F.dropout, unsqueeze(0)."""

    def forward(self, x):
        return F.dropout(x + self.pe[: x.size(1)].unsqueeze(0), self.dropout.p, self.training)


PE_WRONG = [
    wrong(
        PE,
        "no_dropout",
        PENoDropout,
        "dropout",
    ),
    wrong(
        PE,
        "dropout_before_adding_pe",
        PEDropoutBeforeAdding,
        "dropout",
    ),
    wrong(
        PE,
        "pe_not_sliced",
        PENotSliced,
        "pe[:t]",
    ),
    wrong(
        PE,
        "sliced_by_batch",
        PESlicedByBatch,
        "size(1)",
    ),
    wrong(
        PE,
        "pytorch_tutorial_sequence_first",
        PESequenceFirst,
        "(max_len, 1, d_model)",
    ),
    wrong(PE, "pe_is_a_parameter", PEParameter, "buffer"),
    wrong(PE, "pe_not_registered", PEPlainAttribute, "buffer"),
    wrong(PE, "x_scaled_by_sqrt_d_model", PEScaled, "sqrt"),
]
PE_OK = [
    right(PE, "F.dropout", PEFunctionalDropout),
    right(PE, "pytorch_tutorial_layout_added_right", PETutorialLayout),
]

# ----------------------------------------------------------------------------- 05.LayerNorm

LN = "05.LayerNorm"


def layer_norm(var="biased", eps_where="inside", bias=True, weight=True, dim=-1):
    class LN_(LayerNorm):
        def __init__(self, d_model, eps=1e-5):
            super().__init__(d_model, eps)
            if not bias:
                del self.bias
            if not weight:
                del self.weight

        def forward(self, x):
            mean = x.mean(dim=dim, keepdim=True)
            v = x.var(dim=dim, unbiased=(var == "unbiased"), keepdim=True)
            if eps_where == "inside":
                x_hat = (x - mean) / torch.sqrt(v + self.eps)
            else:  # (x - mean) / (std + eps)
                x_hat = (x - mean) / (v.sqrt() + self.eps)
            y = x_hat * self.weight if weight else x_hat
            return y + self.bias if bias else y

    return type("LayerNorm", (LN_,), {})


class LNGammaBeta(nn.Module):
    """Parameters named gamma and beta (as some tutorials do)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma, self.beta = (
            nn.Parameter(torch.ones(d_model)),
            nn.Parameter(torch.zeros(d_model)),
        )

    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.gamma + self.beta


class LNRsqrt(LayerNorm):
    """Correct, written differently: rsqrt and a hand-written variance."""

    def forward(self, x):
        centered = x - x.mean(-1, keepdim=True)
        return (
            centered * torch.rsqrt(centered.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
            + self.bias
        )


LN_WRONG = [
    wrong(LN, "unbiased_variance", layer_norm(var="unbiased"), "unbiased"),
    wrong(LN, "eps_outside_sqrt", layer_norm(eps_where="outside"), "eps"),
    wrong(
        LN,
        "annotated_transformer_std_unbiased_eps_outside",
        layer_norm(var="unbiased", eps_where="outside"),
        "std",
    ),
    wrong(LN, "no_bias", layer_norm(bias=False), "bias"),
    wrong(LN, "no_weight", layer_norm(weight=False), "weight"),
    wrong(LN, "normalized_over_dim_0", layer_norm(dim=0), "last dim"),
    wrong(LN, "gamma_beta_names", LNGammaBeta, "weight"),
]
LN_OK = [right(LN, "rsqrt", LNRsqrt)]

# ----------------------------------------------------------------------------- 05.FeedForward

FF = "05.FeedForward"


class FFVariant(FeedForward):
    order = "act_dropout"
    residual = False

    def forward(self, x):
        h = self.linear1(x)
        if self.order == "act_dropout":
            h = self.linear2(self.dropout(self.activation(h)))
        elif self.order == "dropout_after_linear2":
            h = self.dropout(self.linear2(self.activation(h)))
        elif self.order == "dropout_before_act":
            h = self.linear2(self.activation(self.dropout(h)))
        elif self.order == "no_activation":
            h = self.linear2(self.dropout(h))
        elif self.order == "relu_after_linear2":
            h = F.relu(self.linear2(self.dropout(self.activation(h))))
        return x + h if self.residual else h


def ffn(**changes):
    return type("FeedForward", (FFVariant,), changes)


class FFAlwaysGelu(FeedForward):
    def forward(self, x):
        return self.linear2(self.dropout(F.gelu(self.linear1(x))))


class FFTanhGelu(FeedForward):
    def forward(self, x):
        act = (
            self.activation
            if self.activation is F.relu
            else (lambda h: F.gelu(h, approximate="tanh"))
        )
        return self.linear2(self.dropout(act(self.linear1(x))))


class FFLazy(FeedForward):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__(d_model, d_ff, dropout, activation)
        self.linear1, self.linear2 = nn.LazyLinear(d_ff), nn.LazyLinear(d_model)


class FFFunctionalDropout(FeedForward):
    """Correct, written differently: F.dropout."""

    def forward(self, x):
        return self.linear2(
            F.dropout(self.activation(self.linear1(x)), self.dropout.p, self.training)
        )


FF_WRONG = [
    wrong(
        FF,
        "dropout_after_linear2",
        ffn(order="dropout_after_linear2"),
        "dropout",
    ),
    wrong(
        FF,
        "dropout_before_activation",
        ffn(order="dropout_before_act"),
        "dropout",
    ),
    wrong(FF, "no_activation", ffn(order="no_activation"), "activation"),
    wrong(FF, "relu_after_linear2", ffn(order="relu_after_linear2"), "linear2"),
    wrong(FF, "residual_inside", ffn(residual=True), "residual"),
    wrong(FF, "always_gelu", FFAlwaysGelu, "activation"),
    wrong(FF, "tanh_gelu", FFTanhGelu, "tanh"),
    wrong(
        FF,
        "d2l_lazy_linear",
        FFLazy,
        "construct",
    ),
]
FF_OK = [right(FF, "F.dropout", FFFunctionalDropout)]

# --------------------------------------------------------------------- 05.TransformerEncoderBlock

EB = "05.TransformerEncoderBlock"


class EBVariant(TransformerEncoderBlock):
    ffn_dropout = True
    attn_dropout = True
    norm_for_ffn = "norm2"
    post_ln_form = "norm_of_sum"
    attn_residual = True
    pass_mask = True
    honour_norm_first = True

    def forward(self, x, mask=None):
        m = mask if self.pass_mask else None
        n2 = self.norm1 if self.norm_for_ffn == "norm1" else self.norm2

        def attn(h):
            out, _ = self.self_attn(h, mask=m)
            return self.dropout1(out) if self.attn_dropout else out

        def ff(h):
            out = self.ffn(h)
            return self.dropout2(out) if self.ffn_dropout else out

        res = 1.0 if self.attn_residual else 0.0
        if self.norm_first or not self.honour_norm_first:
            x = res * x + attn(self.norm1(x))
            return x + ff(n2(x))
        if self.post_ln_form == "sum_of_norm":  # x + LN(f(x)): the norm on the branch, not the sum
            x = res * x + self.norm1(attn(x))
            return x + n2(ff(x))
        x = self.norm1(res * x + attn(x))
        return n2(x + ff(x))


def block(**changes):
    return type("TransformerEncoderBlock", (EBVariant,), changes)


class EBActivationIgnored(TransformerEncoderBlock):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first, "relu")


class EBFunctionalDropout(TransformerEncoderBlock):
    """Correct, written differently: F.dropout on both sublayers."""

    def forward(self, x, mask=None):
        p, t = self.dropout1.p, self.training
        sub_a = lambda h: F.dropout(self.self_attn(h, mask=mask)[0], p, t)
        sub_f = lambda h: F.dropout(self.ffn(h), p, t)
        if self.norm_first:
            x = x + sub_a(self.norm1(x))
            return x + sub_f(self.norm2(x))
        x = self.norm1(x + sub_a(x))
        return self.norm2(x + sub_f(x))


EB_WRONG = [
    wrong(
        EB,
        "no_ffn_dropout",
        block(ffn_dropout=False),
        "dropout",
    ),
    wrong(
        EB,
        "no_attention_dropout",
        block(attn_dropout=False),
        "dropout",
    ),
    wrong(
        EB,
        "norm1_reused",
        block(norm_for_ffn="norm1"),
        "norm1",
    ),
    wrong(
        EB,
        "post_ln_as_x_plus_ln_f",
        block(post_ln_form="sum_of_norm"),
        "post",
    ),
    wrong(EB, "no_attention_residual", block(attn_residual=False), "residual"),
    wrong(EB, "mask_not_passed", block(pass_mask=False), "mask"),
    wrong(EB, "norm_first_ignored", block(honour_norm_first=False), "norm_first"),
    wrong(EB, "activation_ignored", EBActivationIgnored, "activation"),
]
EB_OK = [right(EB, "F.dropout", EBFunctionalDropout)]

# ------------------------------------------------------------- beyond the catalogue (issue 12)


class MHADropoutOn(MultiHeadAttention):
    """Dropout on the values or on the scores instead of the weights."""

    where = "values"

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q, k = self.split_heads(self.q_proj(query)), self.split_heads(self.k_proj(key))
        v = self.v_proj(value)
        v = self.split_heads(self.dropout(v) if self.where == "values" else v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if self.where == "scores":
            scores = self.dropout(scores)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(-1)
        return self.out_proj(self.merge_heads(weights @ v)), weights


class MHAOneHead(MultiHeadAttention):
    """num_heads ignored: a single head of size d_model."""

    def split_heads(self, x):
        return x.unsqueeze(1)

    def merge_heads(self, x):
        return x.squeeze(1)

    def forward(self, query, key=None, value=None, mask=None):
        self.d_head = self.d_model
        return MultiHeadAttention.forward(self, query, key, value, mask)


class MHAFixedP(MultiHeadAttention):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__(d_model, num_heads, dropout, bias)
        self.dropout = nn.Dropout(0.1)  # the argument is ignored


class MHAFairseqLayout(MultiHeadAttention):
    """Correct, written differently: heads folded into the batch, (B * H, T, d_head), bmm, and
    an additive float mask."""

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, _ = query.shape
        H, dh = self.num_heads, self.d_head

        def fold(t):  # (B, T, d_model) -> (B * H, T, d_head)
            return t.view(B, -1, H, dh).transpose(1, 2).reshape(B * H, -1, dh)

        q, k, v = fold(self.q_proj(query)), fold(self.k_proj(key)), fold(self.v_proj(value))
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(dh)  # (B * H, T_q, T_k)
        if mask is not None:
            full = mask.expand(B, H, T_q, k.size(1)).reshape(B * H, T_q, -1)
            scores = scores + torch.zeros_like(scores).masked_fill(~full, float("-inf"))
        weights = self.dropout(scores.softmax(-1))
        out = torch.bmm(weights, v).view(B, H, T_q, dh).transpose(1, 2).reshape(B, T_q, -1)
        return self.out_proj(out), weights.view(B, H, T_q, -1)


def table_from_1(max_len, d_model):
    return table()(max_len + 1, d_model)[1:]


def table_loop(max_len, d_model):
    """Correct, written differently: Python loops."""
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / 10000 ** (i / d_model)
            pe[pos, i] = math.sin(angle)
            if i + 1 < d_model:
                pe[pos, i + 1] = math.cos(angle)
    return pe


class PEInPlace(PositionalEncoding):
    def forward(self, x):
        x += self.pe[: x.size(1)]  # changes the caller's x
        return self.dropout(x)


class PEDropoutOnPe(PositionalEncoding):
    def forward(self, x):
        return x + self.dropout(self.pe[: x.size(1)])


class PEBatchFirstBuffer(nn.Module):
    """Correct, written differently: a (1, max_len, d_model) buffer."""

    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model)[None])

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


class LNNoBiasAdded(LayerNorm):
    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight


class LNEpsFixed(LayerNorm):
    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-6) * self.weight + self.bias


class LNVarMean(LayerNorm):
    """Correct, written differently: torch.var_mean."""

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias


class FFFixedP(FeedForward):
    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__(d_model, d_ff, dropout, activation)
        self.dropout = nn.Dropout(0.1)


class FFDropoutOnInput(FeedForward):
    def forward(self, x):
        return self.linear2(self.activation(self.linear1(self.dropout(x))))


class FFModules(nn.Module):
    """Correct, written differently: nn.GELU / nn.ReLU modules and nn.Dropout in a row."""

    def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
        super().__init__()
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.act = nn.GELU() if activation == "gelu" else nn.ReLU()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.drop(self.act(self.linear1(x))))


class EBBuiltWithout(TransformerEncoderBlock):
    """Sublayers built without the dropout argument."""

    without = ("self_attn",)

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first, activation)
        if "self_attn" in self.without:
            self.self_attn = MultiHeadAttention(d_model, num_heads)
        if "ffn" in self.without:
            self.ffn = FeedForward(d_model, d_ff, activation=activation)


class LNNoBiasInForward(LayerNorm):
    def forward(self, x):
        return LNNoBiasAdded.forward(self, x)


class EBNormNoBias(TransformerEncoderBlock):
    """The block on a LayerNorm that forgets its bias."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first, activation)
        self.norm1, self.norm2 = LNNoBiasInForward(d_model), LNNoBiasInForward(d_model)


class EBFinalNorm(TransformerEncoderBlock):
    def forward(self, x, mask=None):
        out = super().forward(x, mask)
        return self.norm2(out) if self.norm_first else out


MORE = [
    wrong(MHA, "dropout_on_values", type("MultiHeadAttention", (MHADropoutOn,), {}), "values"),
    wrong(
        MHA,
        "dropout_on_scores",
        type("MultiHeadAttention", (MHADropoutOn,), {"where": "scores"}),
        "scores",
    ),
    wrong(MHA, "num_heads_ignored", MHAOneHead, "num_heads"),
    wrong(MHA, "dropout_p_ignored", MHAFixedP, "`dropout` argument"),
    wrong(SPE, "positions_from_1", table_from_1, "position 0"),
    wrong(PE, "x_changed_in_place", PEInPlace, "in place"),
    wrong(PE, "dropout_on_pe", PEDropoutOnPe, "dropout"),
    wrong(LN, "bias_not_added", LNNoBiasAdded, "bias"),
    wrong(LN, "eps_fixed", LNEpsFixed, "eps"),
    wrong(FF, "dropout_p_ignored", FFFixedP, "`dropout` argument"),
    wrong(FF, "dropout_on_input", FFDropoutOnInput, "input"),
    wrong(EB, "self_attn_without_dropout", EBBuiltWithout, "self_attn"),
    wrong(
        EB,
        "ffn_without_dropout",
        type("TransformerEncoderBlock", (EBBuiltWithout,), {"without": ("ffn",)}),
        "ffn",
    ),
    wrong(EB, "final_norm_in_pre_ln", EBFinalNorm, "normalized at the end"),
]
MORE_OK = [
    right(MHA, "fairseq_layout_additive_mask", MHAFairseqLayout),
    right(SPE, "python_loops", table_loop),
    right(PE, "batch_first_buffer", PEBatchFirstBuffer),
    right(LN, "var_mean", LNVarMean),
    right(FF, "activation_modules", FFModules),
]

test_wrong_version_fails_with_named_message, test_correct_variant_passes = make_tests(
    MHA_WRONG + SPE_WRONG + PE_WRONG + LN_WRONG + FF_WRONG + EB_WRONG + MORE,
    MHA_OK + SPE_OK + PE_OK + LN_OK + FF_OK + EB_OK + MORE_OK,
)
