META = {'exercise': '08.kv_cache_step',
        'cause': 'starts from an empty cache made with torch.zeros on the CPU (float32)',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': False}


from helpers.blocks.attention import scaled_dot_product_attention


def kv_cache_step(q, k, v, cache=None):
    if cache is None:
        B, H, _, d = k.shape
        cache = (torch.zeros(B, H, 0, d), torch.zeros(B, H, 0, d))
    k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
    out, _ = scaled_dot_product_attention(q, k, v)
    return out, (k, v)
