META = {"exercise": "08.kv_cache_step", "cause": "puts the new key and value in front of the cache (torch.cat([k, k_cache])) instead of appending them at the end, so the cache is in reverse time order (the output is unaffected, the cache is not)", "keywords": [r"append", r"prepend", r"order", r"end of the cache|at the end", r"front|beginning|reverse"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is None:
        k_all, v_all = k, v
    else:
        k_cache, v_cache = cache
        k_all = torch.cat([k, k_cache], dim=-2)
        v_all = torch.cat([v, v_cache], dim=-2)
    out, _ = scaled_dot_product_attention(q, k_all, v_all)
    return out, (k_all, v_all)
