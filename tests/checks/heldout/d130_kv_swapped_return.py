META = {"exercise": "08.kv_cache_step",
        "cause": "returns the cache as (v_cache, k_cache) instead of (k_cache, v_cache)",
        "keywords": [r"swap", r"order", r"k_cache", r"v_cache", r"\(k_cache, ?v_cache\)"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k_cache, v_cache = cache
        k = torch.cat([k_cache, k], dim=2)
        v = torch.cat([v_cache, v], dim=2)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (v, k)
