META = {'exercise': '05.layer_norm_backward',
        'correct': True,
        'source': 'the classical closed form (1 / (d s)) (d g - sum g - x_hat sum(g x_hat)), with flatten(0, -2)'}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    N = x.size(-1)
    mu = x.mean(-1, keepdim=True)
    std = (((x - mu) ** 2).mean(-1, keepdim=True) + eps).sqrt()
    xhat = (x - mu) / std
    dxhat = grad_y * weight
    dx = (N * dxhat - dxhat.sum(-1, keepdim=True) - xhat * (dxhat * xhat).sum(-1, keepdim=True)) / (N * std)
    dgamma = (grad_y * xhat).flatten(0, -2).sum(0)
    dbeta = grad_y.flatten(0, -2).sum(0)
    return dx, dgamma, dbeta
