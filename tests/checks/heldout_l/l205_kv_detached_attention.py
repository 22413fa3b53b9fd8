META = {'exercise': '08.kv_cache_step',
        'cause': 'attends to k.detach() and v.detach(): no gradient reaches the new key and value',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': True}


from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
    out, _ = scaled_dot_product_attention(q, k.detach(), v.detach())
    return out, (k, v)
