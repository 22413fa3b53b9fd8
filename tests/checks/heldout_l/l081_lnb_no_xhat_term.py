META = {'exercise': '05.layer_norm_backward',
        'cause': "grad_x misses the term x_hat * mean(g * x_hat): the variance's path",
        'keywords': [r'x_hat ?\* ?mean', r'varian', r'term', r'scal', r'mean\(g ?\* ?x_hat\)'],
        'kind': 'math',
        'single_edit': True}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.size(-1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    s = torch.sqrt(var + eps)
    x_hat = (x - mean) / s
    g = grad_y * weight
    grad_x = (g - g.mean(-1, keepdim=True)) / s
    grad_weight = (grad_y * x_hat).reshape(-1, d).sum(0)
    grad_bias = grad_y.reshape(-1, d).sum(0)
    return grad_x, grad_weight, grad_bias
