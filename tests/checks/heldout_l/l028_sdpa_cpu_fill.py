META = {'exercise': '02.scaled_dot_product_attention',
        'cause': 'the -inf fill is a torch.full made on the CPU: fails for inputs on another device',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf")))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights
