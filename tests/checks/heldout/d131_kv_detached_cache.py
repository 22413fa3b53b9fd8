META = {"exercise": "08.kv_cache_step",
        "cause": "detaches the cached keys and values before concatenating (to save memory), so no gradient flows back into the cache (forward unchanged)",
        "keywords": [r"detach", r"gradient", r"backward"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([cache[0].detach(), k], dim=-2)
        v = torch.cat([cache[1].detach(), v], dim=-2)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (k, v)
