"""Notebook 03's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

MHA = {  # 03.MultiHeadAttention's, edits of MultiHeadAttention.mha_ref64
    "split_without_transpose": {
        "message": "the heads are split without the transpose: view the projection as (B, "
        "T, H, d_head) and then .transpose(1, 2) to (B, H, T, d_head); a direct view as "
        "(B, H, T, d_head) mixes positions and features.",
        "wrong": "x.view(B, -1, H, d_head).transpose(1, 2) -> x.reshape(B, H, -1, d_head)",
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
    "always_causal": {  # on top of the given mask, or in its place (nanoGPT's overwritten)
        "message": "a causal mask is applied although none was asked for (as nanoGPT's "
        "CausalSelfAttention always does): apply only the `mask` argument, so that the same "
        "module serves encoders (no mask) and decoders (a causal mask passed in).",
        "wrong": [
            "if mask is not None: -> tril = torch.ones(scores.shape[-2:], dtype=torch.bool)"
            ".tril()\n    mask = tril if mask is None else mask & tril\n    if True:",
            "if mask is not None: -> mask = torch.ones(scores.shape[-2:], dtype=torch.bool)"
            ".tril()\n    if True:",
        ],
    },
    "mask_inverted": {
        "message": "the mask is inverted: True means *may attend* in this series (pass it "
        "on to scaled_dot_product_attention as it is); nn.MultiheadAttention's attn_mask is "
        "the one with True = blocked.",
        "wrong": ["~mask -> mask", ("~mask -> mask", "-math.inf -> -1e9")],
    },
    "mask_ignored": {
        "message": "the mask is ignored: pass `mask` on to the attention.",
        "wrong": "if mask is not None: -> if False:",
    },
    "mask_after_softmax": {
        "message": "the mask is applied after softmax: fill the scores with -inf before softmax.",
        "wrong": (
            "scores.masked_fill(~mask, -math.inf) -> scores",
            "dim=-1) -> dim=-1) * (1.0 if mask is None else mask)",
        ),
    },
    "keys_from_query": {
        "message": "the keys come from `query`: project the `key` argument with k_proj.",
        "wrong": '"k_proj", key) -> "k_proj", query)',
    },
    "projection_skipped": {  # q_proj, k_proj (the weights), v_proj, out_proj (out)
        "message": "self.{p} is not applied: the {arg} goes through self.{p} "
        "(nn.Linear(d_model, d_model)).",
        "wrong": [
            'proj("q_proj", query) -> query.double()',
            'proj("k_proj", key) -> key.double()',
            'proj("v_proj", value) -> value.double()',
            'proj("out_proj", merged) -> merged',
        ],
    },
    "merge_without_transpose": {
        "message": "the heads are merged without the transpose: (B, H, T, d_head) -> "
        ".transpose(1, 2) -> (B, T, H, d_head) -> reshape to (B, T, d_model); a direct "
        "reshape mixes positions.",
        "wrong": "heads.transpose(1, 2).reshape -> heads.reshape",
    },
    "weights_times_keys": {
        "message": "the weights multiply the keys: multiply the values v.",
        "wrong": "weights @ v -> weights @ k",
    },
    "value_defaults_to_query": {
        "message": "value defaults to query: when only `key` is given, value defaults to key "
        "(value = key if value is None), so mha(x, memory) takes the keys and the values "
        "from memory.",
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
    # training mode (the check's fixed-mask dropout passed as ``dropout``)
    "dropout_on_output": {
        "message": "dropout is applied to the output: it acts on the attention weights, "
        "weights = self.dropout(weights) before weights @ v.",
        "wrong": (
            "drop(torch.softmax(scores, dim=-1)) -> torch.softmax(scores, dim=-1)",
            'proj("out_proj", merged) -> drop(proj("out_proj", merged))',
        ),
    },
    "dropout_on_values": {
        "message": "dropout is applied to the values v: it acts on the attention weights.",
        "wrong": (
            "drop(torch.softmax(scores, dim=-1)) -> torch.softmax(scores, dim=-1)",
            'split(proj("v_proj", value)) -> split(drop(proj("v_proj", value)))',
        ),
    },
    "dropout_on_scores": {
        "message": "dropout is applied to the scores before softmax: apply it to the "
        "weights after softmax.",
        "wrong": "drop(torch.softmax(scores, dim=-1)) -> torch.softmax(drop(scores), dim=-1)",
    },
    "weights_before_dropout": {
        "message": "the weights returned are those before dropout: return the dropped-out "
        "weights that multiply v (as nn.MultiheadAttention does).",
        "wrong": (
            "drop(torch.softmax(scores, dim=-1)) -> torch.softmax(scores, dim=-1)",
            "heads = weights @ v -> heads = drop(weights) @ v",
        ),
    },
}

#: the mistakes grouped-query attention shares with MHA, word for word, edit for edit
SHARED = ("scale_by_d_model", "no_scale", "softmax_over_queries", "mask_after_softmax",
          "keys_from_query", "values_from_query", "values_from_key")  # fmt: skip

CATALOGUE = {
    "03.MultiHeadAttention": MHA,
    "03.GroupedQueryAttention": {  # edits of GroupedQueryAttention.gqa64
        **{c: MHA[c] for c in SHARED},  # the same words, the same edits of gqa64
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
        "mask_inverted": {
            "message": "the mask is inverted: True means *may attend* in this series.",
            "wrong": ["~mask -> mask", ("~mask -> mask", "-math.inf -> -1e9")],
        },
        "mask_ignored": {
            "message": "the mask is ignored: apply `mask` to the scores (broadcast over the "
            "heads), as in MultiHeadAttention.",
            "wrong": "if mask is not None: -> if False:",
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
    },
}
