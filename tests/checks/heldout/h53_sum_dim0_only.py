META = {"exercise": "05.layer_norm_backward",
        "cause": 'grad_weight and grad_bias are summed over dim 0 only, which leaves extra dims for inputs with more than two dims',
        "keywords": [r"shape|\(d,?\)|every dimension|all (leading )?dim|dim 0|reshape|leading"]}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.shape[-1]
    mean = x.mean(dim=-1, keepdim=True)
    std = torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + eps)
    x_hat = (x - mean) / std
    g = grad_y * weight
    grad_x = (g - g.mean(dim=-1, keepdim=True)
              - x_hat * (g * x_hat).mean(dim=-1, keepdim=True)) / std
    grad_weight = (grad_y * x_hat).sum(0)
    grad_bias = grad_y.sum(0)
    return grad_x, grad_weight, grad_bias
