META = {'exercise': '02.attention_backward',
        'cause': 'grad_q and grad_k miss the factor 1/sqrt(d_k)',
        'keywords': [r'sqrt', r'scal', r'd_k', r'factor'],
        'kind': 'math',
        'single_edit': False}


def attention_backward(q, k, v, grad_out, mask=None):
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    grad_v = weights.transpose(-2, -1) @ grad_out
    grad_weights = grad_out @ v.transpose(-2, -1)
    grad_scores = weights * (grad_weights - (grad_weights * weights).sum(-1, keepdim=True))
    grad_q = grad_scores @ k
    grad_k = grad_scores.transpose(-2, -1) @ q
    return grad_q, grad_k, grad_v
