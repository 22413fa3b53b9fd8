META = {"exercise": "08.kv_cache_step", "correct": True,
        "source": "einsum attention over the cache, cache grown with torch.cat on dim 2 (as in GPT-style past_key_values code)"}


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        past_k, past_v = cache
        k = torch.cat((past_k, k), dim=2)
        v = torch.cat((past_v, v), dim=2)
    att = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    att = torch.softmax(att, dim=-1)
    return torch.einsum("bhqk,bhkd->bhqd", att, v), (k, v)
