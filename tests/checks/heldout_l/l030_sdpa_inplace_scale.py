META = {'exercise': '02.scaled_dot_product_attention',
        'cause': "scales q in place (q /= sqrt(d_k)): the caller's queries are changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    q /= math.sqrt(d_k)
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights
