META = {"exercise": "05.layer_norm_backward",
        "cause": 'grad_x drops the x_hat * mean(g * x_hat) term (the path through the variance)',
        "keywords": [r"variance|x_hat ?\* ?mean|mean\(g ?\* ?x_hat\)|through (the )?(s|std|variance)|scal"]}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.shape[-1]
    mean = x.mean(dim=-1, keepdim=True)
    std = torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + eps)
    x_hat = (x - mean) / std
    g = grad_y * weight
    grad_x = (g - g.mean(dim=-1, keepdim=True)) / std
    grad_weight = (grad_y * x_hat).reshape(-1, d).sum(0)
    grad_bias = grad_y.reshape(-1, d).sum(0)
    return grad_x, grad_weight, grad_bias
