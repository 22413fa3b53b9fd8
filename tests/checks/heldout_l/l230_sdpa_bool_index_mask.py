META = {'exercise': '02.scaled_dot_product_attention',
        'cause': "fills with scores[~mask] = -inf: boolean indexing needs a mask of the scores' full shape, so broadcastable masks fail",
        'keywords': [r'broadcast', r'boolean index', r'shape', r'full shape', r'\(T, ?T\)|\(B, ?1, ?1, ?T\)'],
        'kind': 'math',
        'single_edit': False}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores[~mask] = float("-inf")
    weights = scores.softmax(-1)
    return weights @ v, weights
