META = {"exercise": "08.kv_cache_step", "cause": "appends to the cache along the last dim (d_head) instead of the time dim -2",
        "keywords": [r"dim", r"time", r"append", r"concat", r"cat"]}


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat([cache[0], k], dim=-1)
        v = torch.cat([cache[1], v], dim=-1)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    return w @ v, (k, v)
