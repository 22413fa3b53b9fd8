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
}
