META = {"exercise": "05.layer_norm_backward",
        "cause": 'grad_x drops the mean(g) term (the path through the mean)',
        "keywords": [r"mean\(g\)|through the mean|mean term|sum to (0|zero)|rows? sum|constant"]}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.shape[-1]
    mean = x.mean(dim=-1, keepdim=True)
    std = torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + eps)
    x_hat = (x - mean) / std
    g = grad_y * weight
    grad_x = (g
              - x_hat * (g * x_hat).mean(dim=-1, keepdim=True)) / std
    grad_weight = (grad_y * x_hat).reshape(-1, d).sum(0)
    grad_bias = grad_y.reshape(-1, d).sum(0)
    return grad_x, grad_weight, grad_bias
