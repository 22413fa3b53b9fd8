META = {'exercise': '02.scaled_dot_product_attention',
        'cause': 'zeroes the blocked weights after the softmax without renormalising: rows no longer sum to 1',
        'keywords': [r'renormali', r'sum to 1', r'sums? to (one|1)', r'after (the )?softmax', r'before (the )?softmax'],
        'kind': 'math',
        'single_edit': False}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    out = weights @ v
    return out, weights
