"""Notebook 05's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

AFFINE = "return y * weight.double() + bias.double() -> "
HIDDEN = "h = drop(activation64(activation, h)) -> h = activation64(activation, h)"
LINEAR2 = 'return F.linear(h, p["linear2.weight"], p["linear2.bias"])'

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
}
