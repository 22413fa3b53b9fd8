"""Notebook 08's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "08.sliding_window_mask": {  # edits of sliding_window_mask.window64
        "inverted": {
            "message": "the mask is inverted: in this series True means may attend (True inside "
            "the window), the opposite of nn.MultiheadAttention's attn_mask.",
            "wrong": "return m -> return ~m",
        },
        "strict_window": {
            "message": "the window is off by one: a key at distance exactly `window` is inside "
            "it, use abs(i - j) <= window, not < window.",
            "wrong": "abs() <= window -> abs() < window",
        },
        "window_too_wide": {
            "message": "the window is off by one: it reaches `window + 1` tokens away; use "
            "abs(i - j) <= window.",
            "wrong": "abs() <= window -> abs() <= window + 1",
        },
        "causal_ignored": {
            "message": "the `causal` flag is ignored: with causal=True a query i may only see "
            "keys j <= i (and within the window).",
            "wrong": "if causal: -> if False:",
        },
        "causal_keeps_future": {
            "message": "the causal part keeps the future (j >= i): keep keys j <= i, i.e. the "
            "lower triangle (tril).",
            "wrong": "(j <= i) -> (j >= i)",
        },
        "diagonal_only": {
            "message": "the causal window keeps only each token itself (j == i): with "
            "causal=True keep the keys j <= i with i - j <= window; (j <= i) & (j >= i) leaves "
            "the diagonal only.",
            "wrong": "(j <= i) -> (j <= i) & (j >= i)",
        },
        "causal_when_not_asked": {
            "message": "the mask is causal although {flag}: without the flag the window is "
            "symmetric, abs(i - j) <= window.",
            "wrong": "if causal: -> if True:",
        },
        "no_abs": {
            "message": "the distance has no abs(): i - j <= window keeps every key after the "
            "query. Use abs(i - j) <= window.",
            "wrong": "(i - j).abs() <= window -> i - j <= window",
        },
        "wrong_shape": {
            "message": "the mask has shape {shape}, expected ({T}, {T}).",
            "example": "torch.arange(T)[None, :] -> torch.arange(T + 1)[None, :]",
        },
        "not_bool": {
            "message": "the mask has dtype {dtype}: return a boolean tensor, True = may attend.",
            "example": "return m -> return m.long()",
        },
    },
    "08.blockwise_attention": {  # edits of blockwise_attention.blockwise64
        "not_normalized": {
            "message": "the result is not divided by the running sum at the end: return acc / l.",
            "wrong": "return acc / l -> return acc",
        },
        "accumulator_not_rescaled": {
            "message": "the accumulator is not rescaled when the running max grows: multiply "
            "acc by exp(m_old - m_new) before adding the new block.",
            "wrong": "acc = acc * alpha + -> acc = acc +",
        },
        "sum_not_rescaled": {
            "message": "the running sum is not rescaled when the running max grows: l = l * "
            "exp(m_old - m_new) + p.sum(-1).",
            "wrong": "l = l * alpha + -> l = l +",
        },
        "nothing_rescaled": {
            "message": "neither the running sum nor the accumulator is rescaled when the max "
            "grows: multiply both by exp(m_old - m_new).",
            "wrong": ("acc = acc * alpha + -> acc = acc +", "l = l * alpha + -> l = l +"),
        },
        "blocks_normalized_separately": {
            "message": "each block is normalized on its own and the blocks are averaged: one "
            "softmax runs over all keys, so keep a running sum l of exp(s - m) over the blocks "
            "and divide by it once, at the end.",
            "wrong": (
                "m_new = torch.maximum(m, s.amax(-1, keepdim=True)) -> "
                "m_new = s.amax(-1, keepdim=True)",
                "acc = acc * alpha + p @ vb -> acc = acc + p / p.sum(-1, keepdim=True) @ vb",
                "return acc / l -> return acc / len(range(0, k.shape[-2], block_size))",
            ),
        },
        "last_block_skipped": {
            "message": "the last, shorter block is skipped: loop over range(0, T_k, "
            "block_size); the last block may hold fewer than block_size keys.",
            "wrong": "range(0, k.shape[-2], block_size) -> "
            "range(0, (k.shape[-2] - 1) // block_size * block_size or 1, block_size)",
        },
        "last_block_only": {
            "message": "only the last block counts: the running max, sum and accumulator carry "
            "over from block to block (m = m_new after each block), rescaled by exp(m_old - "
            "m_new).",
            "wrong": "range(0, k.shape[-2], block_size) -> "
            "range((k.shape[-2] - 1) // block_size * block_size, k.shape[-2], block_size)",
        },
        "first_block_only": {
            "message": "only the keys of the first block count: the later blocks are empty or "
            "skipped. Slice each block from its start, k[..., start : start + block_size, :].",
            "wrong": "range(0, k.shape[-2], block_size) -> range(0, block_size, block_size)",
        },
        "keys_left_out": {
            "message": "only the keys {a} to {b} count: the blocks start at 0 and cover every "
            "key, range(0, T_k, block_size), k[..., start : start + block_size, :].",
            "wrong": "range(0, k.shape[-2], block_size) -> range(1, k.shape[-2], block_size)",
        },
    },
    "08.kv_cache_step": {  # edits of kv_cache_step.kv_step64
        "cache_ignored": {
            "message": "each step attends only to the new token: append the new k and v to the "
            "cache first, then attend to the whole cache.",
            "wrong": "if cache is not None: -> if False:",
        },
        "new_token_not_attended": {
            "message": "each step attends to the cached keys but not to the new token itself (it "
            "attends before appending): append the new k and v to the cache first, then attend "
            "to the whole cache.",
            "wrong": [
                "attention64(q, k, v)[0] -> attention64(q, *(cache or (k, v)))[0]",
                "attention64(q, k, v)[0] -> attention64(q, *cache)[0] if cache else v * math.nan",
            ],
        },
        "cache_keeps_last_only": {
            "message": "each step sees only the previous token and itself: the returned cache "
            "must hold every token so far, torch.cat([k_cache, k], dim=-2), not just the newest "
            "one.",
            "wrong": "return out, (k, v) -> return out, (k[..., -1:, :], v[..., -1:, :])",
        },
        "cache_not_extended": {
            "message": "each step sees only the first token and itself: the cache is never "
            "extended. Return the concatenated (k, v) as the new cache, not the cache you were "
            "given.",
            "wrong": "return out, (k, v) -> return out, cache or (k, v)",
        },
        "first_key_only": {
            "message": "every step attends only to the first token: its weights should be the "
            "softmax over all cached keys, softmax(q k^T / sqrt(d_k)).",
            "wrong": (
                "attention64(q, k, v)[0] -> attention64(q, *(cache or (k, v)))[0]",
                "return out, (k, v) -> return out, cache or (k, v)",
            ),
        },
        "softmax_over_queries": {
            "message": "every cached value gets weight 1: the softmax runs over the single query "
            "(dim=-2). Take it over the keys, softmax(scores, dim=-1).",
            "wrong": "attention64(q, k, v)[0] -> v.sum(-2, keepdim=True)",
        },
    },
    "08.linear_attention": {  # edits of linear_attention.linear64
        "not_normalized": {
            "message": "the output is not normalized: divide phi(q_i)·S by phi(q_i)·z, where z is "
            "the sum of phi(k_j) (the weights of each query must sum to 1, as in softmax "
            "attention).",
            "wrong": (
                " / (pq * z).sum(-1, keepdim=True) -> ",
                " / (pq * z[..., None, :]).sum(-1, keepdim=True) -> ",
            ),
        },
        "feature_map_on_v": {
            "message": "the feature map is applied to v too: only q and k go through phi(x) = "
            "elu(x) + 1; the values are averaged as they are.",
            "wrong": "v.double() -> elu1(v.double())",
        },
        "q_scaled": {
            "message": "q is divided by sqrt(d_k): linear attention has no scaling, phi(x) = "
            "elu(x) + 1 goes on q and k as they are (the scale belongs to softmax attention).",
            "wrong": "elu1(q.double()) -> elu1(q.double() / math.sqrt(q.shape[-1]))",
        },
        "scaled_before_feature_map": {
            "message": "q and k are scaled before the feature map: linear attention applies "
            "phi(x) = elu(x) + 1 to q and k as they are.",
            "wrong": (
                "elu1(q.double()) -> elu1(q.double() / q.shape[-1] ** 0.25)",
                "elu1(k.double()) -> elu1(k.double() / q.shape[-1] ** 0.25)",
            ),
        },
        "softmax_attention": {
            "message": "this is softmax attention: write linear attention with the feature map "
            "phi(x) = elu(x) + 1.",
            "wrong": "def linear64(q, k, v, causal=False):\n"
            "    return attention64(q, k, v, causal=causal)[0]\n",
        },
        "causal_ignored": {
            "message": "the `causal` flag is ignored: with causal=True output i only sums over "
            "keys j <= i (cumulative sums over the sequence, torch.cumsum(..., dim=-3) for S and "
            "dim=-2 for z).",
            "wrong": "if causal: -> if False:",
        },
        "denominator_not_causal": {
            "message": "the numerator is causal but the denominator sums over all keys: use the "
            "cumulative sum of phi(k_j) too.",
            "wrong": "z = pk.cumsum(-2) -> z = pk.sum(-2, keepdim=True)",
        },
        "numerator_not_causal": {
            "message": "the denominator is causal but the numerator sums over all keys: use the "
            "cumulative sum of phi(k_j) v_jᵀ too.",
            "wrong": ".cumsum(-3) -> .sum(-3, keepdim=True)",
        },
    },
}
