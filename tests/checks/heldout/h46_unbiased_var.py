META = {"exercise": "05.layer_norm_backward",
        "cause": 'uses the unbiased variance (x.var() default, divides by d-1) instead of the biased one',
        "keywords": [r"unbiased|biased|d ?- ?1|bessel|correction|var\(\)"]}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.shape[-1]
    mean = x.mean(dim=-1, keepdim=True)
    std = torch.sqrt(x.var(dim=-1, keepdim=True) + eps)
    x_hat = (x - mean) / std
    g = grad_y * weight
    grad_x = (g - g.mean(dim=-1, keepdim=True)
              - x_hat * (g * x_hat).mean(dim=-1, keepdim=True)) / std
    grad_weight = (grad_y * x_hat).reshape(-1, d).sum(0)
    grad_bias = grad_y.reshape(-1, d).sum(0)
    return grad_x, grad_weight, grad_bias
