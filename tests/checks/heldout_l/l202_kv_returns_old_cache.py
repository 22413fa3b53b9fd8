META = {'exercise': '08.kv_cache_step',
        'cause': 'returns the cache it was given, without the new entry',
        'keywords': [r'cache (is |was )?(not (updated|extended|grown)|unchanged|the old|without)', r'old cache', r't ?\+ ?1', r'new entry', r'append', r'grow'],
        'kind': 'mode/state',
        'single_edit': True}


from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, cache if cache is not None else (k, v)
