META = {'exercise': '02.scaled_dot_product_attention',
        'cause': 'fills where the mask is True: reads the mask as True = blocked, the opposite convention',
        'keywords': [r'invert', r'opposite', r'convention', r'True ?= ?(blocked|masked)', r'~ ?mask', r'revers', r'flip'],
        'kind': 'math',
        'single_edit': True}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights
