"""Notebook 01's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "01.softmax": {  # edits of softmax64
        "not_normalized": {
            "message": "the values do not sum to 1: divide by the sum of the exponentials along "
            "`dim`.",
            "wrong": "return e / e.sum(dim=dim, keepdim=True) -> return e",
        },
        "sum_without_keepdim": {
            "message": "the sums lose the `dim` axis (sum without keepdim=True), so they no longer "
            "line up with the values they divide: use e.sum(dim=dim, keepdim=True).",
            "wrong": "e.sum(dim=dim, keepdim=True) -> e.sum(dim=dim)",
        },
        "sum_over_all": {
            "message": "the whole tensor sums to 1: sum along `dim` with keepdim=True, not over "
            "everything.",
            "wrong": [
                "e.sum(dim=dim, keepdim=True) -> e.sum()",
                (
                    "x.amax(dim=dim, keepdim=True) -> x.amax()",
                    "e.sum(dim=dim, keepdim=True) -> e.sum()",
                ),
            ],
        },
        "log_softmax": {  # the log of the answer, and its stable form (log(0) is -inf)
            "message": "this is log-softmax: return the probabilities.",
            "wrong": [
                "return e / e.sum(dim=dim, keepdim=True) -> "
                "return (e / e.sum(dim=dim, keepdim=True)).log()",
                (
                    ")).exp() -> ))",
                    "return e / e.sum(dim=dim, keepdim=True) -> "
                    "return e - e.exp().sum(dim=dim, keepdim=True).log()",
                ),
            ],
        },
        "max_without_keepdim": {
            "message": "the max along `dim` loses that axis (max without keepdim=True), so it no "
            "longer lines up with the values it is subtracted from: use x.amax(dim=dim, "
            "keepdim=True) (or x.max(dim=dim, keepdim=True).values).",
            "wrong": "x.amax(dim=dim, keepdim=True) -> x.amax(dim=dim)",
        },
        "max_last_dim": {
            "message": "the max is taken along another dim (the last one) than `dim`: each value "
            "of a slice along `dim` then has a different number subtracted, and the result is no "
            "longer a softmax. Subtract x.amax(dim=dim, keepdim=True).",
            "wrong": "x.amax(dim=dim, keepdim=True) -> x.amax(dim=-1, keepdim=True)",
        },
        "dim_ignored": {
            "message": "softmax was taken over dim {d}: use the `dim` argument.",
            "example": (
                "(dim=dim, keepdim=True)).exp() -> (dim=-1, keepdim=True)).exp()",
                "e.sum(dim=dim, keepdim=True) -> e.sum(dim=-1, keepdim=True)",
            ),
        },
        "global_max": {
            "message": "the output has NaN: subtract the max of each slice along `dim` "
            "(x.amax(dim=dim, keepdim=True)), not the max of the whole tensor: a row far below "
            "the global max underflows to 0/0.",
            "example": "x.amax(dim=dim, keepdim=True) -> x.amax()",
        },
        "shift_not_max": {
            "message": "the output has NaN or inf: after your shift an exponent is still huge "
            "(subtracting the mean or the min of [0, 1000] leaves exp(500) or exp(1000), which "
            "overflow). Subtract the max along `dim`: then every exponent is <= 0.",
            "example": (
                "x = x.double() -> x = x",
                "x.amax(dim=dim, keepdim=True) -> x.mean(dim=dim, keepdim=True)",
            ),
        },
        "no_shift": {
            "message": "the output has NaN or inf: exp(1000) overflows. Subtract the max along "
            "`dim` (keepdim=True) before exponentiating; softmax does not change.",
            "example": "(x - x.amax(dim=dim, keepdim=True)).exp() -> x.exp()",
        },
        "not_finite": {
            "message": "the output has NaN or inf where every softmax value is finite (between 0 "
            "and 1). Look for the step that makes it: an exp that overflows (subtract the max "
            "along `dim` first), a log of a negative number, a division by 0.",
        },
        "not_positive": {
            "message": "some values are negative: softmax's values are exp(x - max) / sum, all "
            "positive. Exponentiate the shifted values before dividing.",
        },
        "not_proportional_to_exp": {
            "message": "the values sum to 1 but are not proportional to exp(x): softmax(x) = "
            "exp(x - max) / sum(exp(x - max)), so p_i / p_j = exp(x_i - x_j).",
        },
    },
    "01.dot_product_attention": {  # edits of dot_attention64
        "swapped_outputs": {
            "message": "the outputs are in the wrong order: return (z, weights).",
            "example": "return weights @ x, weights -> return weights, weights @ x",
        },
        "softmax_over_columns": {
            "message": "the columns of weights sum to 1, not the rows: take the softmax over the "
            "last dim (each query's weights over all keys).",
            "wrong": "dim=-1 -> dim=-2",
        },
        "scaled": {
            "message": "the scores are divided by sqrt(d): this notebook's attention has no "
            "scaling (that is notebook 02).",
            "wrong": "scores = x @ x.transpose(-2, -1) -> "
            "scores = x @ x.transpose(-2, -1) / math.sqrt(x.size(-1))",
        },
        "no_softmax": {
            "message": "weights are the raw scores: apply softmax over the last dim.",
            "wrong": "torch.softmax(scores, dim=-1) -> scores",
        },
        "weights_transposed": {
            "message": "z uses the transposed weights: z = weights @ x, row i mixes the inputs "
            "with the weights of query i.",
            "wrong": "return weights @ x -> return weights.transpose(-2, -1) @ x",
        },
    },
    "01.softmax_backward": {  # edits of softmax_backward64
        "diagonal_only": {
            "message": "you used only the Jacobian's diagonal, y_i (1 - y_i) grad_y_i: score i "
            "moves every weight, not only weight i (the -y_i y_j off the diagonal). grad_x = y * "
            "(grad_y - sum(grad_y * y)) along `dim`.",
            "wrong": "(g - (g * y).sum(dim=dim, keepdim=True)) -> (1 - y) * g",
        },
        "sign": {
            "message": "the weighted sum is added: grad_x = y * (grad_y - sum(grad_y * y)), minus "
            "(the Jacobian is diag(y) - y yᵀ).",
            "wrong": "(g - (g * y) -> (g + (g * y)",
        },
        "missing_outer_y": {
            "message": "the result is not multiplied by y: grad_x = y * (grad_y - sum(grad_y * "
            "y)); a weight near 0 passes almost no gradient back.",
            "wrong": "return y * (g -> return (g",
        },
        "unweighted_sum": {
            "message": "the sum is of grad_y alone: it is weighted by y, sum(grad_y * y) along "
            "`dim`.",
            "wrong": "(g * y).sum -> g.sum",
        },
        "softmax_of_y": {
            "message": "y is already the softmax's output: use it as it is, do not take its "
            "softmax again.",
            "wrong": "y, g = y.double(), -> y, g = softmax64(y, dim),",
        },
        "dim_ignored": {
            "message": "the sum runs along dim {d}{default}: sum along the `dim` argument, the "
            "axis the softmax normalised.",
            "example": "sum(dim=dim, -> sum(dim=-1,",
        },
        "sum_without_keepdim": {
            "message": "the sum loses the `dim` axis (sum without keepdim=True), so it no longer "
            "lines up with grad_y: use (grad_y * y).sum(dim=dim, keepdim=True).",
            "example": ".sum(dim=dim, keepdim=True) -> .sum(dim=dim)",
        },
        "returned_jacobian": {
            "message": "grad_x has shape {shape}, the Jacobian's: the backward pass returns one "
            "number per input, shape {y_shape}. Multiply grad_y by the Jacobian without building "
            "it: y * (grad_y - sum(grad_y * y)).",
            "example": "return y * (g - (g * y).sum(dim=dim, keepdim=True)) -> "
            "return torch.diag_embed(y) - y[..., :, None] * y[..., None, :]",
        },
        "built_jacobian": {
            "message": "as large as a ({n}, {n}) Jacobian or larger: multiply grad_y by the "
            "Jacobian without building it, y * (grad_y - (grad_y * y).sum(dim, keepdim=True)): "
            "every step is the size of y.",
            "example": "def softmax_backward64(y, grad_y, dim=-1):\n"
            "    y, g = y.double().movedim(dim, -1), grad_y.double().movedim(dim, -1)\n"
            "    jac = torch.diag_embed(y) - y[..., :, None] * y[..., None, :]\n"
            "    return (g[..., None, :] @ jac).squeeze(-2).movedim(-1, dim)\n",
        },
        "not_summing_to_zero": {
            "message": "grad_x does not sum to 0 along `dim`, and every softmax gradient does: "
            "adding the same number to every x changes no weight, so moving x that way changes "
            "no loss. Check the term subtracted from grad_y: sum(grad_y * y) along `dim`, with "
            "keepdim=True, then multiply everything by y.",
            "example": "(g - (g * y).sum(dim=dim, keepdim=True)) -> g",
        },
    },
}
