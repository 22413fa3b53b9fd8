META = {'exercise': '02.scaled_dot_product_attention',
        'correct': True,
        'source': 'Hugging Face style: q scaled first, blocked scores filled with torch.finfo(dtype).min'}


def scaled_dot_product_attention(q, k, v, mask=None):
    q = q * q.size(-1) ** -0.5
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)
    return torch.matmul(weights, v), weights
