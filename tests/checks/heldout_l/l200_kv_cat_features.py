META = {'exercise': '08.kv_cache_step',
        'cause': 'concatenates along the feature dim (-1) instead of time (-2)',
        'keywords': [r'(wrong|another|other|ignor\w*|last|first) (dim|axis)', r'\bdim( argument| is ignored)', r'time (dim|axis)', r'over time', r'along time', r'axis', r'feature (dim|axis)'],
        'kind': 'math',
        'single_edit': True}


from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=-1), torch.cat([cache[1], v], dim=-1)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (k, v)
