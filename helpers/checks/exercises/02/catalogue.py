"""Notebook 02's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "02.scaled_dot_product_attention": {  # edits of sdpa64
        "scale_by_d_v": {
            "message": "the scores are divided by sqrt(d_v) = sqrt({d_v}): scale by sqrt(d_k) = "
            "sqrt({d_k}), the size of the queries and keys (q.size(-1)).",
            "wrong": "math.sqrt(d_k) -> math.sqrt(v.size(-1))",
        },
        "no_scale": {
            "message": "the scores are not scaled: divide q @ kᵀ by sqrt(d_k).",
            "wrong": " / math.sqrt(d_k) -> ",
        },
        "scale_by_d_k": {
            "message": "the scores are divided by d_k: divide by sqrt(d_k) (math.sqrt).",
            "wrong": "math.sqrt(d_k) -> d_k",
        },
        "scale_multiplied": {
            "message": "the scores are multiplied by sqrt(d_k): divide by it.",
            "wrong": "/ math.sqrt(d_k) -> * math.sqrt(d_k)",
        },
        "softmax_over_queries": {
            "message": "softmax is taken over the queries (dim=-2): each query's weights over the "
            "keys must sum to 1, so use dim=-1.",
            "wrong": "dim=-1 -> dim=-2",
        },
        "scaled_after_softmax": {
            "message": "the weights are divided by sqrt(d_k) after softmax, so the rows no longer "
            "sum to 1: divide the scores q @ kᵀ before softmax.",
            "wrong": (" / math.sqrt(d_k) -> ", "dim=-1) -> dim=-1) / math.sqrt(q.size(-1))"),
        },
        "scale_by_T_k": {
            "message": "the scores are divided by sqrt(T_k) = sqrt({T_k}), the number of keys"
            "{T_q_too}: scale by sqrt(d_k) = q.size(-1), the size of one query or key.",
            "wrong": "math.sqrt(d_k) -> math.sqrt(k.size(-2))",
        },
        "mask_inverted": {
            "message": "the mask is inverted: True means *may attend*, so fill the scores where "
            "the mask is False (masked_fill(~mask, -inf)). nn.MultiheadAttention uses the "
            "opposite convention; this series does not.",
            "wrong": [
                "(~mask, -math.inf) -> (mask, -math.inf)",
                "(~mask, -math.inf) -> (mask, -1e9)",
            ],
        },
        "mask_ignored": {
            "message": "the mask is ignored: blocked keys still get weight. Fill the scores where "
            "mask is False with -inf before softmax.",
            "wrong": "if mask is not None: -> if False:",
        },
        "mask_after_softmax": {
            "message": "the mask is applied after softmax: blocked keys get 0 but the rows no "
            "longer sum to 1. Fill the scores with -inf before softmax instead.",
            "wrong": (
                "if mask is not None: -> if False:",
                "dim=-1) -> dim=-1) * (1 if mask is None else mask)",
            ),
        },
        "blocked_scores_zero": {
            "message": "the blocked scores are set to 0 (the mask multiplied into the scores, or "
            "masked_fill(~mask, 0)): exp(0) = 1, so blocked keys still get weight. Fill them with "
            "-inf: scores.masked_fill(~mask, float('-inf')).",
            "wrong": "scores.masked_fill(~mask, -math.inf) -> scores * mask",
        },
        "mask_added": {
            "message": "the mask is added to the scores (a boolean mask adds 1 where True): fill "
            "the blocked scores with -inf, scores.masked_fill(~mask, float('-inf')).",
            "wrong": "scores.masked_fill(~mask, -math.inf) -> scores + mask",
        },
        "weights_times_keys": {
            "message": "{seen}: the weights must multiply the values v, not the keys k.",
            "wrong": "return weights @ v -> return weights @ k",
        },
        "weights_transposed": {
            "message": "out uses the transposed weights: out = weights @ v.",
            "wrong": "return weights @ v -> return weights.transpose(-2, -1) @ v",
        },
        "swapped_outputs": {
            "message": "the outputs are in the wrong order: return (out, weights).",
            "example": "return weights @ v, weights -> return weights, weights @ v",
        },
        "mask_multiplied_nan": {
            "message": "{found} A NaN often comes from 0 * -inf (multiplying the mask into the "
            "scores): use scores.masked_fill(~mask, float('-inf')).",
            "example": "scores.masked_fill(~mask, -math.inf) -> "
            "scores * torch.ones_like(scores).masked_fill(~mask, -math.inf)",
        },
    },
    "02.causal_mask": {  # edits of causal64
        "mask_inverted": {
            "message": "the mask is True above the diagonal (key > query): that is the 'True = "
            "blocked' convention of nn.MultiheadAttention. Here True = may attend: use tril.",
            "wrong": "return torch.ones -> return ~torch.ones",
        },
        "triu": {
            "message": "the mask is upper-triangular: query i may then see the future keys j > "
            "i. Row i (query) must be True for columns j <= i: use tril, not triu.",
            "wrong": ".tril() -> .triu()",
        },
        "no_diagonal": {
            "message": "the diagonal is False: a token must be allowed to attend to itself (key "
            "<= query, not key < query); use tril() with diagonal=0.",
            "wrong": ".tril() -> .tril(-1)",
        },
        "wrong_shape": {
            "message": "the mask has shape {shape}, expected ({T}, {T}).",
            "example": "torch.ones(T, T, -> torch.ones(T + 1, T + 1,",
        },
        "additive_mask": {
            "message": "this is an additive float mask (0 and -inf): return booleans, True where "
            "key <= query (dtype=torch.bool).",
            "example": "return torch.ones(T, T, dtype=torch.bool).tril() -> "
            "return torch.zeros(T, T).masked_fill(~torch.ones(T, T).bool().tril(), -torch.inf)",
        },
        "not_bool": {
            "message": "the mask has dtype {dtype}: return a boolean tensor (dtype=torch.bool, or "
            ".bool()), True = may attend.",
            "example": ".tril() -> .tril().float()",
        },
    },
    "02.padding_mask": {  # edits of padding64
        "mask_inverted": {
            "message": "the mask is True at the padding: True marks the real tokens (tokens != "
            "pad_id), the ones that may be attended to.",
            "wrong": "tokens != pad_id -> tokens == pad_id",
        },
        "greater_than_pad": {
            "message": "the mask is tokens > pad_id: a real token may have a smaller id than "
            "pad_id (token 0 here); use tokens != pad_id.",
            "wrong": "tokens != pad_id -> tokens > pad_id",
        },
        "pad_id_ignored": {
            "message": "the mask compares with 0, not with pad_id = {pad_id}: use the pad_id "
            "argument.",
            "wrong": "tokens != pad_id -> tokens != 0",
        },
        "zero_also_padding": {
            "message": "the mask is False at id 0 as well as at pad_id = {pad_id}: id 0 is a "
            "real token here, and a mask made with .bool() (or != 0) treats every 0 as padding. "
            "Compare with pad_id alone: tokens != pad_id.",
            "wrong": "tokens != pad_id -> (tokens != pad_id) & (tokens != 0)",
        },
        "counted": {
            "message": "the mask keeps the first n positions, n the number of real tokens: right "
            "only when the padding is at the end (notebook 07 pads on the left). Compare each "
            "token with pad_id: tokens != pad_id.",
            "wrong": "(tokens != pad_id)[:, None, None, :] -> "
            "(torch.arange(tokens.shape[-1]) < (tokens != pad_id).sum(-1, keepdim=True))"
            "[:, None, None]",
        },
        "not_bool": {
            "message": "the mask has dtype {dtype}: return booleans (tokens != pad_id is already "
            "bool).",
            "example": "[:, None, None, :] -> [:, None, None, :].long()",
        },
        "missing_dims": {
            "message": "the mask has shape {shape}, expected ({B}, 1, 1, {T}): add the head and "
            "query dimensions (mask[:, None, None, :]) so it broadcasts against scores of shape "
            "(B, H, T_q, T_k).",
            "example": ["[:, None, None, :] -> ", "[:, None, None, :] -> [:, None, :]"],
        },
        "query_axis": {
            "message": "the mask has shape {shape}: the tokens must sit on the last (key) "
            "dimension, ({B}, 1, 1, {T}), so that padded *keys* are blocked.",
            "example": [
                "[:, None, None, :] -> [:, :, None, None]",
                "[:, None, None, :] -> [:, None, :, None]",
            ],
        },
        "wrong_shape": {
            "message": "the mask has shape {shape}, expected ({B}, 1, 1, {T}).",
            "example": "[:, None, None, :] -> [None, :, None, :]",
        },
    },
    "02.attention_backward": {  # edits of attention_backward64
        "mask_ignored": {
            "message": "the mask is ignored: recompute the weights exactly as the forward pass "
            "did, with the blocked scores at -inf (a blocked key gets weight 0 and no gradient).",
            "wrong": "if mask is not None: -> if False:",
        },
        "grad_v_not_transposed": {
            "message": "grad_v = weights @ grad_out: each value v_j was used by every query with "
            "weight w_ij, so grad_v = weightsᵀ @ grad_out (shape (..., T_k, d_v)).",
            "wrong": "grad_v = w.transpose(-2, -1) @ g -> grad_v = w @ g",
        },
        "no_scale": {
            "message": "the scaling is missing from the backward pass: the scores are q kᵀ / "
            "sqrt(d_k), so the gradient of q kᵀ is the scores' gradient divided by sqrt(d_k) = "
            "sqrt({d_k}).",
            "wrong": "(grad_w - weighted) / root -> (grad_w - weighted)",
        },
        "scale_multiplied": {
            "message": "the scores' gradient is multiplied by sqrt(d_k): the forward pass "
            "divided by sqrt(d_k), so the backward pass divides too.",
            "wrong": "(grad_w - weighted) / root -> (grad_w - weighted) * root",
        },
        "scaled_twice": {
            "message": "the scores' gradient is divided by d_k = sqrt(d_k)² (the scaling applied "
            "twice, or d_k where sqrt(d_k) belongs): divide it by sqrt(d_k) once (d_k = {d_k}).",
            "wrong": "(grad_w - weighted) / root -> (grad_w - weighted) / root**2",
        },
        "softmax_diagonal_only": {
            "message": "the softmax's backward uses only the Jacobian's diagonal, w (1 - w) "
            "grad_w: grad_scores = w * (grad_w - sum(grad_w * w, -1)), the backward you wrote in "
            "notebook 01.",
            "wrong": "w * (grad_w - weighted) -> w * (1 - w) * grad_w",
        },
        "softmax_skipped": {
            "message": "the softmax's backward is skipped (grad_scores = grad_weights): "
            "grad_scores = w * (grad_w - sum(grad_w * w, -1)), notebook 01's softmax_backward.",
            "wrong": "w * (grad_w - weighted) -> grad_w",
        },
        "softmax_no_sum": {
            "message": "the softmax's backward drops the weighted sum: these are the gradients "
            "of grad_scores = w * grad_w (diag(w) alone, not the Jacobian diag(w) - w wᵀ). "
            "Weight j moves when any score of its row does: grad_scores = w * (grad_w - "
            "sum(grad_w * w, -1)), notebook 01's softmax_backward.",
            "wrong": "w * (grad_w - weighted) -> w * grad_w",
        },
        "softmax_sign": {
            "message": "the softmax's backward adds the weighted sum: grad_scores = w * (grad_w "
            "- sum(grad_w * w, -1)), minus.",
            "wrong": "grad_w - weighted -> grad_w + weighted",
        },
        "softmax_unweighted_sum": {
            "message": "the softmax's backward subtracts the plain sum of grad_w: the sum is "
            "weighted by the weights, grad_scores = w * (grad_w - sum(grad_w * w, -1)), notebook "
            "01's softmax_backward.",
            "wrong": "weighted = (grad_w * w).sum -> weighted = grad_w.sum",
        },
        "grad_weights_from_keys": {
            "message": "grad_weights = grad_out @ kᵀ: the weights multiplied the values, so "
            "grad_weights = grad_out @ vᵀ.",
            "wrong": "grad_w = g @ v.transpose -> grad_w = g @ k.transpose",
        },
        "grad_q_from_q": {
            "message": "grad_q uses q: scores = q kᵀ, so grad_q = grad_scores @ k (and grad_k = "
            "grad_scoresᵀ @ q).",
            "wrong": "return grad_s @ k, -> return grad_s @ q,",
        },
        "grad_k_not_transposed": {
            "message": "grad_k = grad_scores @ q: key j's gradient collects over the queries, "
            "grad_k = grad_scoresᵀ @ q.",
            "wrong": "grad_s.transpose(-2, -1) @ q -> grad_s @ q",
        },
    },
}
