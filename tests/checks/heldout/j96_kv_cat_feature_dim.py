META = {"exercise": "08.kv_cache_step",
        "cause": "concatenates along the last (feature) dimension instead of the time dimension -2",
        "keywords": [r"dim", r"time", r"feature", r"-2", r"shape"]}

from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([cache[0], k], dim=-1)
        v = torch.cat([cache[1], v], dim=-1)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (k, v)
