"""Notebook 05's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

AFFINE = "return y * weight.double() + bias.double() -> "
HIDDEN = "h = drop(activation64(activation, h)) -> h = activation64(activation, h)"
LINEAR2 = 'return F.linear(h, p["linear2.weight"], p["linear2.bias"])'
MEAN_G, XHAT_TERM = " - g.mean(-1, keepdim=True)", " - x_hat * (g * x_hat).mean(-1, keepdim=True)"
NORMS = 'n1, n2 = "norm1", "norm2" -> n1, n2 = '
BUILT = "(PyTorch's layer has it there)"
NO_ATTN_RESIDUAL = (  # x * 0: the no-residual block as block64 computed it
    "x = x + drop(attn(norm1(x))) -> x = x * 0 + drop(attn(norm1(x)))",
    "x = norm1(x + drop(attn(x))) -> x = norm1(x * 0 + drop(attn(x)))",
)
NO_FFN_RESIDUAL = (
    "return x + drop(ffn(norm2(x))) -> return x * 0 + drop(ffn(norm2(x)))",
    "return norm2(x + drop(ffn(x))) -> return norm2(x * 0 + drop(ffn(x)))",
)
SUM_G, SUM_GXHAT = "g.mean(-1, -> g.sum(-1,", "(g * x_hat).mean(-1, -> (g * x_hat).sum(-1,"

CATALOGUE = {
    "05.LayerNorm": {  # edits of ln64 (the variance and eps mistakes: modules.variance_mistakes)
        "no_affine": {
            "message": "weight and bias are not applied: return x_hat * weight + bias.",
            "wrong": AFFINE + "return y",
        },
        "no_bias": {
            "message": "the bias is not added: return x_hat * weight + bias.",
            "wrong": AFFINE + "return y * weight.double()",
        },
        "no_weight": {
            "message": "x_hat is not multiplied by weight: return x_hat * weight + bias.",
            "wrong": AFFINE + "return y + bias.double()",
        },
        "weight_bias_swapped": {
            "message": "weight and bias are swapped: return x_hat * weight + bias.",
            "wrong": AFFINE + "return y * bias.double() + weight.double()",
        },
        "bias_scaled_by_weight": {
            "message": "the bias is scaled by the weight, (x_hat + bias) * weight: return x_hat "
            "* weight + bias.",
            "wrong": AFFINE + "return (y + bias.double()) * weight.double()",
        },
        "weight_zeros": {
            "message": "the output is the bias alone: x_hat * weight is 0 everywhere, with the "
            "weights loaded (not 0), so x_hat is 0: x - mean must subtract each row's mean over "
            "the last dim, x.mean(dim=-1, keepdim=True), and forward must use self.weight.",
            "wrong": AFFINE + "return y * 0 + bias.double()",
        },
        # the module as built (weight 1, bias 0): swapped in forward or at init, the same output
        "weight_bias_swapped_built": {
            "message": "a freshly built LayerNorm (no weights loaded) outputs all ones, as if "
            "weight were 0 and bias 1: either weight and bias start swapped (weight starts at "
            "torch.ones(d_model), bias at torch.zeros(d_model)), or forward swaps them (return "
            "x_hat * weight + bias).",
        },
        # the module as built: the init and x_hat are not told apart
        "weight_zeros_built": {
            "message": "the output is the bias alone: x_hat * weight is 0 everywhere. Is weight "
            "initialized to zeros? Use torch.ones(d_model). (Or x_hat is 0: x - mean must "
            "subtract each row's mean over the last dim, x.mean(dim=-1, keepdim=True).)",
        },
        "wrong_dim": {
            "message": "normalized over {dims}: LayerNorm normalizes each token's d_model "
            "features on its own, over the last dim only (dim=-1).",
            "example": [
                ("mean(dim=-1, -> mean(dim=1,", "var(dim=-1, -> var(dim=1,"),
                ("mean(dim=-1, -> mean(dim=(-2, -1),", "var(dim=-1, -> var(dim=(-2, -1),"),
                ("mean(dim=-1, -> mean(dim=0,", "var(dim=-1, -> var(dim=0,"),
            ],
        },
        "variance_cancellation": {
            "message": "the output is wrong under a large offset: {hint}",
            "example": "x.var(dim=-1, keepdim=True, unbiased=False) -> "
            "(x.float() ** 2).mean(dim=-1, keepdim=True) - mean**2",  # E[x²] - E[x]², float32
        },
    },
    "05.FeedForward": {  # edits of ffn_ref64
        "dropout_after_linear2": {
            "message": "dropout is applied after linear2: it belongs on the hidden activations, "
            "linear2(dropout(act(linear1(x)))).",
            "wrong": (HIDDEN, f"{LINEAR2} -> return drop({LINEAR2[7:]})"),
        },
        "dropout_before_activation": {
            "message": "dropout is applied before the activation: apply it after, "
            "linear2(dropout(act(linear1(x)))) (with ReLU both give the same numbers, with GELU "
            "they do not).",
            "wrong": "drop(activation64(activation, h)) -> activation64(activation, drop(h))",
        },
        "dropout_on_input": {
            "message": "dropout is applied to the input x: apply it to the hidden activations, "
            "linear2(dropout(act(linear1(x)))).",
            "wrong": (HIDDEN, "F.linear(x.double(), -> F.linear(drop(x.double()),"),
        },
        "activation_ignored": {
            "message": "this is the {other} network, though activation={act!r} here: the "
            "`activation` argument is ignored, or picks the wrong function.",
            "wrong": "activation64(activation, h) -> "
            "activation64('gelu' if activation == 'relu' else 'relu', h)",
        },
        "tanh_gelu": {
            "message": "this GELU is the tanh approximation: use the exact one, F.gelu(h) "
            "(approximate='none'), as nn.TransformerEncoderLayer does.",
            "wrong": "activation64(activation, h) -> activation64('gelu_tanh', h)",
        },
        "no_activation": {
            "message": "there is no activation between linear1 and linear2: two linear layers "
            "in a row are just one linear map.",
            "wrong": "activation64(activation, h) -> h",
        },
        "activation_after_linear2": {  # this activation, or a relu whatever `activation`
            "message": "the activation is also applied after linear2: the output of linear2 is "
            "returned as is (it joins the residual stream).",
            "wrong": [
                f"{LINEAR2} -> return activation64(activation, {LINEAR2[7:]})",
                f"{LINEAR2} -> {LINEAR2}.relu()",
            ],
        },
        "residual_inside": {
            "message": "the output includes x (a residual): FeedForward returns "
            "linear2(act(linear1(x))); the block adds the residual.",
            "wrong": f"{LINEAR2} -> return x.double() + {LINEAR2[7:]}",
        },
    },
    "05.layer_norm_backward": {  # edits of lnb64
        "grad_params_wrong_dims": {
            "message": "{what} has shape {shape}, expected {expected}, one value per feature, "
            "like the weight: sum over every dim but the last (all the tokens of the batch), "
            "grad_y.reshape(-1, d).sum(0).",
            "example": "rows_w.sum(0), rows_b.sum(0) -> (gy * x_hat).sum(0), gy.sum(0)",
        },
        "no_mean_terms": {
            "message": "grad_x is grad_y * weight / std alone: both terms that come from the "
            "mean and the variance are missing. Every x_i moves the row's mean and variance, so "
            "with g = grad_y * weight: grad_x = (g - mean(g) - x_hat * mean(g * x_hat)) / std, "
            "the means over the last dim.",
            "wrong": f"{MEAN_G}{XHAT_TERM}) -> )",
        },
        "no_mean_of_grad": {
            "message": "the term - mean(g) (g = grad_y * weight, the mean over the last dim) is "
            "missing from grad_x: it comes from the mean mu, which every x_i moves. A check: "
            "adding a constant to a row of x changes nothing, so each row of grad_x must sum to "
            "0.",
            "wrong": MEAN_G + " -> ",
        },
        "no_xhat_term": {
            "message": "grad_x is what it would be without the term - x_hat * mean(g * x_hat) (g "
            "= grad_y * weight): that term is left out, or the x_hat in it is 0 (x - mean with "
            "the wrong mean). It comes from the variance, which every x_i moves. A check: "
            "scaling a row of x changes (almost) nothing, so (grad_x * x_hat).sum(-1) must be "
            "about 0.",
            "wrong": XHAT_TERM + " -> ",
        },
        "unbiased": {
            "message": "the variance is the unbiased one (divided by d - 1): the forward pass "
            "uses the biased variance, divided by d (x.var(dim=-1, unbiased=False)), so its "
            "backward must too.",
            "wrong": "unbiased=False -> unbiased=True",
        },
        "std_plus_eps": {
            "message": "std is x.std() + eps: x.std() is the unbiased one (divided by d - 1) and "
            "eps sits outside the square root. As in the forward pass: std = "
            "torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + eps).",
            "wrong": ("unbiased=False -> unbiased=True", "(var + eps).sqrt() -> var.sqrt() + eps"),
        },
        "eps_outside": {
            "message": "eps is outside the square root: std = sqrt(var + eps), as in the forward "
            "pass (the check uses eps=1.0 to see it).",
            "wrong": "(var + eps).sqrt() -> var.sqrt() + eps",
        },
        "eps_ignored": {
            "message": "the `eps` argument is ignored (the case passes eps={eps:g}): use it in "
            "std = sqrt(var + eps).",
            "wrong": "(var + eps).sqrt() -> (var + 1e-5).sqrt()",
        },
        "no_weight": {
            "message": "grad_x ignores the weight: the gradient that reaches x_hat is g = grad_y "
            "* weight (y = x_hat * weight + bias), and grad_x is built from g.",
            "wrong": "g = gy * w -> g = gy",
        },
        "not_divided": {
            "message": "grad_x is not divided by std: x reaches y only through (x - mu) / std, "
            "so every term of grad_x carries the factor 1 / std, grad_x = (g - mean(g) - x_hat "
            "* mean(g * x_hat)) / std.",
            "wrong": "keepdim=True)) / std -> keepdim=True))",
        },
        "sums_not_means": {  # the judge words {terms} for each program, in this order
            "message": "grad_x is what it would be with {terms} summed over the last dim where "
            "the mean belongs (d = {d} times too large): grad_x = (g - mean(g) - x_hat * mean(g "
            "* x_hat)) / std, g = grad_y * weight, the means over the d features (mu and the "
            "variance are means, so each x_i moves them by 1/d).",
            "wrong": [
                (SUM_G, SUM_GXHAT),
                SUM_G,
                SUM_GXHAT,
            ],
        },
        "grad_weight_mean": {
            "message": "{what} is a mean over the tokens: it is a sum. Every token uses the same "
            "weight and bias, so every token adds its share of the gradient.",
            "wrong": "rows_w.sum(0), rows_b.sum(0) -> rows_w.mean(0), rows_b.mean(0)",
        },
        "grad_weight_from_x": {
            "message": "grad_weight is the sum of grad_y * x: the weight multiplies x_hat, so "
            "grad_weight = (grad_y * x_hat) summed over every dim but the last.",
            "wrong": "(gy * x_hat).reshape -> (gy * x).reshape",
        },
        "params_swapped": {
            "message": "grad_weight and grad_bias are swapped: the weight multiplies x_hat, so "
            "grad_weight sums grad_y * x_hat; the bias is added as is, so grad_bias sums grad_y.",
            "wrong": "rows_w.sum(0), rows_b.sum(0) -> rows_b.sum(0), rows_w.sum(0)",
        },
    },
    "05.TransformerEncoderBlock": {  # edits of block_ref64
        # eval mode
        "norm_first_ignored": {
            "message": "norm_first is ignored: with norm_first={norm_first} the block is "
            "{kind}, {steps}.",
            "wrong": "if norm_first: -> if not norm_first:",
        },
        "no_residual": {
            "message": "the residual connections are missing: each sublayer's output is added to "
            "its input, x = x + sublayer(...).",
            "wrong": NO_ATTN_RESIDUAL + NO_FFN_RESIDUAL,
        },
        "no_attn_residual": {
            "message": "the residual around self-attention is missing: {attn}.",
            "wrong": NO_ATTN_RESIDUAL,
        },
        "no_ffn_residual": {
            "message": "the residual around the feed-forward sublayer is missing: {ffn}.",
            "wrong": NO_FFN_RESIDUAL,
        },
        "norms_swapped": {
            "message": "norm1 and norm2 are swapped: norm1 belongs to the attention sublayer, "
            "norm2 to the feed-forward sublayer.",
            "wrong": NORMS + '"norm2", "norm1"',
        },
        "norm1_reused": {
            "message": "norm1 is used for both sublayers: the feed-forward sublayer has its own "
            "LayerNorm, norm2 (two norms, two sets of weights).",
            "wrong": NORMS + '"norm1", "norm1"',
        },
        "residual_from_normed": {  # pre-LN
            "message": "the residual is taken from the normalized input: add the raw x, x = x + "
            "attn(norm1(x)), not h + attn(h) with h = norm1(x).",
            "wrong": (
                "x = x + drop(attn(norm1(x))) -> x = norm1(x) + drop(attn(norm1(x)))",
                "return x + drop(ffn(norm2(x))) -> return norm2(x) + drop(ffn(norm2(x)))",
            ),
        },
        "final_norm": {  # pre-LN
            "message": "the output is normalized at the end: a pre-LN block returns x + "
            "ffn(norm2(x)) as is (the final norm belongs to the encoder, notebook 06).",
            "wrong": "return x + drop(ffn(norm2(x))) -> return norm2(x + drop(ffn(norm2(x))))",
        },
        "post_ln_norm_on_branch": {  # post-LN
            "message": "this post-LN block computes x + LN(f(x)), the norm on the sublayer's "
            "output: post-LN normalizes the sum, {steps}.",
            "wrong": (
                "x = norm1(x + drop(attn(x))) -> x = x + norm1(drop(attn(x)))",
                "return norm2(x + drop(ffn(x))) -> return x + norm2(drop(ffn(x)))",
            ),
        },
        "mask_ignored": {  # with a mask
            "message": "the mask is ignored: pass it on, self_attn(h, mask=mask).",
            "wrong": "num_heads, mask, -> num_heads, None,",
        },
        "mask_inverted": {  # with a mask
            "message": "the mask is inverted: in this series True means may attend (the "
            "opposite of nn.MultiheadAttention's attn_mask).",
            "wrong": "num_heads, mask, -> num_heads, None if mask is None else ~mask,",
        },
        "activation_ignored": {
            "message": "the `activation` argument does not reach the feed-forward sublayer "
            "(activation={act!r} here).",
            "wrong": "ffn64(state, h, activation, -> "
            "ffn64(state, h, 'gelu' if activation == 'relu' else 'relu',",
        },
        # training mode: the dropouts a block may miss
        "no_ffn_dropout": {
            "message": "the dropout after the feed-forward sublayer (dropout2) is missing: x + "
            f"dropout2(ffn(...)) {BUILT}.",
            "wrong": ("+ drop(ffn(norm2(x))) -> + ffn(norm2(x))", "+ drop(ffn(x)) -> + ffn(x)"),
        },
        "no_attn_dropout": {
            "message": "the dropout after self-attention (dropout1) is missing: use "
            f"self._attn(h, mask), which applies it {BUILT}.",
            "wrong": ("+ drop(attn(norm1(x))) -> + attn(norm1(x))", "+ drop(attn(x)) -> + attn(x)"),
        },
        "no_sublayer_dropout": {
            "message": "dropout1 and dropout2 are missing: each sublayer's output goes through "
            f"dropout before it is added {BUILT}.",
            "wrong": (
                "+ drop(attn(norm1(x))) -> + attn(norm1(x))",
                "+ drop(attn(x)) -> + attn(x)",
                "+ drop(ffn(norm2(x))) -> + ffn(norm2(x))",
                "+ drop(ffn(x)) -> + ffn(x)",
            ),
        },
        "attn_without_dropout": {
            "message": "self_attn has no dropout: build it with MultiHeadAttention(d_model, "
            "num_heads, dropout).",
            "wrong": "mask, dropout=drop) -> mask)",
        },
        "ffn_without_dropout": {
            "message": "ffn has no dropout: build it with FeedForward(d_model, d_ff, dropout, "
            "activation).",
            "wrong": 'prefix="ffn.", dropout=drop) -> prefix="ffn.")',
        },
        "sublayers_without_dropout": {
            "message": "self_attn and ffn have no dropout: pass `dropout` on to "
            "MultiHeadAttention(...) and FeedForward(...).",
            "wrong": (
                "mask, dropout=drop) -> mask)",
                'prefix="ffn.", dropout=drop) -> prefix="ffn.")',
            ),
        },
    },
}
