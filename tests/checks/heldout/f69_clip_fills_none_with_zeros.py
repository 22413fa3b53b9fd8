META = {"exercise": "07b.clip_grad_norm",
        "cause": "replaces a None gradient with zeros (p.grad = zeros_like(p)) instead of leaving it None",
        "keywords": [r"None", r"stays? None|left None|zeros?|skip"]}


def clip_grad_norm(parameters, max_norm):
    params = list(parameters)
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)  # an unused parameter has zero gradient
    total = torch.sqrt(sum((p.grad * p.grad).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total
