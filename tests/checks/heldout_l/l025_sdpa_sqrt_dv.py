META = {'exercise': '02.scaled_dot_product_attention',
        'cause': 'divides by sqrt(d_v), the value size, instead of sqrt(d_k)',
        'keywords': [r'd_v', r'value size', r'v\.size', r'sqrt\(d_k\)', r'size of the (values|queries)'],
        'kind': 'math',
        'single_edit': True}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = v.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights
