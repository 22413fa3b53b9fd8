META = {"exercise": "08.kv_cache_step", "cause": "attends to the old cache before appending the new key/value: the token never sees itself",
        "keywords": [r"before append", r"itself", r"new (token|key)", r"append", r"order"]}


def kv_cache_step(q, k, v, cache=None):
    if cache is None:
        keys, values = k, v
        out = torch.softmax(q @ keys.transpose(-2, -1) / math.sqrt(q.size(-1)), -1) @ values
        return out, (keys, values)
    out = torch.softmax(q @ cache[0].transpose(-2, -1) / math.sqrt(q.size(-1)), -1) @ cache[1]
    return out, (torch.cat([cache[0], k], -2), torch.cat([cache[1], v], -2))
