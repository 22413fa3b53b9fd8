META = {"exercise": "08.kv_cache_step",
        "cause": "attends to the concatenated keys and values but returns the old cache (or the new token alone at the first step), so the cache never grows past t entries",
        "keywords": [r"t ?\+ ?1", r"updated|grow", r"append", r"old cache"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is None:
        cache = (k, v)
        k_all, v_all = k, v
    else:
        k_all = torch.cat([cache[0], k], dim=-2)
        v_all = torch.cat([cache[1], v], dim=-2)
    out, _ = scaled_dot_product_attention(q, k_all, v_all)
    return out, cache
