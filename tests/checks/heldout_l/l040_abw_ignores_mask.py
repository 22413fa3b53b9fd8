META = {'exercise': '02.attention_backward',
        'cause': 'recomputes the weights without the mask: blocked keys get weight and gradient',
        'keywords': [r'mask (is )?(not|never|ignored|dropped|missing|unused)', r'(ignor|drop|miss|forg|lose|lost)\w* (the )?(\w+ )?mask', r'without (the |a |its )?mask', r'mask\w* (has )?no effect', r'not pass\w* (on )?(the )?mask', r'blocked', r'padded'],
        'kind': 'math',
        'single_edit': False}


def attention_backward(q, k, v, grad_out, mask=None):
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = q @ k.transpose(-2, -1) * scale
    weights = torch.softmax(scores, dim=-1)
    grad_v = weights.transpose(-2, -1) @ grad_out
    grad_weights = grad_out @ v.transpose(-2, -1)
    grad_scores = weights * (grad_weights - (grad_weights * weights).sum(-1, keepdim=True))
    grad_q = grad_scores @ k * scale
    grad_k = grad_scores.transpose(-2, -1) @ q * scale
    return grad_q, grad_k, grad_v
