META = {"exercise": "08.kv_cache_step", "cause": "attends to the appended keys but returns the old cache, so it never grows",
        "keywords": [r"cache", r"grow", r"t ?\+ ?1", r"append", r"entries"]}


def kv_cache_step(q, k, v, cache=None):
    if cache is None:
        keys, values = k, v
        new_cache = (k, v)
    else:
        keys = torch.cat([cache[0], k], dim=-2)
        values = torch.cat([cache[1], v], dim=-2)
        new_cache = cache
    w = torch.softmax(q @ keys.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    return w @ values, new_cache
