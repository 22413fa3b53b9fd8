META = {'exercise': '05.layer_norm_backward',
        'cause': 'grad_x = g / s: both paths through the mean and the variance are missing',
        'keywords': [r'mean', r'varian', r'term', r'sum to (0|zero)', r'sums? to (0|zero)', r'path'],
        'kind': 'math',
        'single_edit': False}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    mu = x.mean(dim=-1, keepdim=True)
    sigma = torch.sqrt(((x - mu) ** 2).mean(dim=-1, keepdim=True) + eps)
    x_hat = (x - mu) / sigma
    grad_x = grad_y * weight / sigma
    flat = lambda t: t.reshape(-1, t.size(-1)).sum(dim=0)
    return grad_x, flat(grad_y * x_hat), flat(grad_y)
