"""Notebook 03's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "03.GroupedQueryAttention": {  # edits of GroupedQueryAttention.gqa64
        "kv_heads_tiled": {
            "message": "the key/value heads are repeated with .repeat (tiled: heads 0, 1, 0, 1): "
            "query head h must read kv head h // (num_heads // num_kv_heads), so that "
            "consecutive query heads share one (0, 0, 1, 1). Use k.repeat_interleave(group, "
            "dim=1), or expand a new dim after the kv heads: k[:, :, None].expand(B, H_kv, "
            "group, T, d_head).reshape(B, H, T, d_head).",
            "wrong": '"k_proj", key), H_kv).repeat_interleave(group, dim=1) -> '
            '"k_proj", key), H_kv).repeat(1, group, 1, 1)',
        },
        "split_without_transpose": {
            "message": "the heads are split without the transpose: view the projection as (B, "
            "T, heads, d_head) and then .transpose(1, 2); a direct view as (B, heads, T, d_head) "
            "mixes positions and features.",
            "wrong": "x.view(B, -1, heads, d_head).transpose(1, 2) -> "
            "x.reshape(B, heads, -1, d_head)",
        },
        "scale_by_d_model": {
            "message": "the scores are divided by sqrt(d_model): each head's dot products have "
            "d_head terms, so scale by sqrt(d_head) = sqrt(d_model // num_heads).",
            "wrong": "math.sqrt(d_head) -> math.sqrt(d_model)",
        },
        "no_scale": {
            "message": "the scores are not scaled: divide by sqrt(d_head).",
            "wrong": " / math.sqrt(d_head) -> ",
        },
        "softmax_over_queries": {
            "message": "softmax is taken over the queries (dim=-2): use dim=-1, the keys.",
            "wrong": "dim=-1) -> dim=-2)",
        },
        "mask_inverted": {
            "message": "the mask is inverted: True means *may attend* in this series.",
            "wrong": ["~mask -> mask", ("~mask -> mask", "-math.inf -> -1e9")],
        },
        "mask_ignored": {
            "message": "the mask is ignored: apply `mask` to the scores (broadcast over the "
            "heads), as in MultiHeadAttention.",
            "wrong": "if mask is not None: -> if False:",
        },
        "mask_after_softmax": {
            "message": "the mask is applied after softmax: fill the scores with -inf before "
            "softmax.",
            "wrong": (
                "scores.masked_fill(~mask, -math.inf) -> scores",
                "dim=-1) -> dim=-1) * (1.0 if mask is None else mask)",
            ),
        },
        "keys_from_query": {
            "message": "the keys come from `query`: project the `key` argument with k_proj.",
            "wrong": '"k_proj", key) -> "k_proj", query)',
        },
        "values_tiled": {
            "message": "the keys are repeated right but the values with .repeat (tiled): repeat "
            "v as you repeat k, v.repeat_interleave(group, dim=1), so each query head reads the "
            "values of its own kv head.",
            "wrong": '"v_proj", value), H_kv).repeat_interleave(group, dim=1) -> '
            '"v_proj", value), H_kv).repeat(1, group, 1, 1)',
        },
        "merge_without_transpose": {
            "message": "the heads are merged without the transpose: (B, H, T, d_head) -> "
            ".transpose(1, 2) -> reshape to (B, T, d_model).",
            "wrong": "heads.transpose(1, 2).reshape -> heads.reshape",
        },
        "value_defaults_to_query": {
            "message": "value defaults to query: when only `key` is given, value defaults to key "
            "(value = key if value is None).",
            "wrong": "value = key if value -> value = query if value",
        },
        "values_from_query": {
            "message": "the values come from `query`: project the `value` argument with v_proj.",
            "wrong": '"v_proj", value) -> "v_proj", query)',
        },
        "values_from_key": {
            "message": "the values come from `key`: project the `value` argument with v_proj.",
            "wrong": '"v_proj", value) -> "v_proj", key)',
        },
    },
}
