META = {"exercise": "08.kv_cache_step",
        "cause": "adds a (t+1, t+1) causal mask although the single query is the last position: the mask's first row lets the query see only the first key, and the output gets t+1 rows",
        "keywords": [r"mask", r"causal", r"no mask is needed", r"shape|\(B, ?H, ?1, ?d_head\)"]}

from helpers.blocks.attention import causal_mask, scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([cache[0], k], dim=-2)
        v = torch.cat([cache[1], v], dim=-2)
    mask = causal_mask(k.size(-2), device=q.device)
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, (k, v)
