META = {'exercise': '05.layer_norm_backward',
        'cause': 'grad_weight and grad_bias are summed over dim 0 only: for more than one leading dimension they keep a token axis',
        'keywords': [r'every dim', r'all (the )?dim', r'shape', r'\(d,\)', r'sum(med)? over'],
        'kind': 'math',
        'single_edit': False}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.size(-1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    s = torch.sqrt(var + eps)
    x_hat = (x - mean) / s
    g = grad_y * weight
    grad_x = (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)) / s
    grad_weight = (grad_y * x_hat).sum(0)
    grad_bias = grad_y.sum(0)
    return grad_x, grad_weight, grad_bias
