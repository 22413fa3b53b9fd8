META = {"exercise": "08.kv_cache_step",
        "cause": "puts the new key and value in front of the cache instead of appending them at the end, reversing the cache's time order",
        "keywords": [r"order", r"append", r"end", r"prepend|front|first", r"time"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([k, cache[0]], dim=-2)
        v = torch.cat([v, cache[1]], dim=-2)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (k, v)
