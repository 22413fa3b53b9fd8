META = {'exercise': '02.attention_backward',
        'cause': 'the softmax correction D is rowsum(grad_out * v) instead of rowsum(grad_out * out)',
        'keywords': [r'\bD\b', r'rowsum', r'grad_out ?\* ?out', r'softmax', r'correction'],
        'kind': 'math',
        'single_edit': False}


def attention_backward(q, k, v, grad_out, mask=None):
    scale = q.shape[-1] ** -0.5
    S = (q @ k.transpose(-1, -2)) * scale
    if mask is not None:
        S = S.masked_fill(~mask, float("-inf"))
    P = S.softmax(dim=-1)
    D = (grad_out * v.sum(dim=-2, keepdim=True)).sum(dim=-1, keepdim=True)
    dV = P.transpose(-1, -2) @ grad_out
    dP = grad_out @ v.transpose(-1, -2)
    dS = P * (dP - D)
    return (dS @ k) * scale, (dS.transpose(-1, -2) @ q) * scale, dV
