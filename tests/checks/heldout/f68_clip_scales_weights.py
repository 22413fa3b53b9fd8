META = {"exercise": "07b.clip_grad_norm",
        "cause": "scales the weights (p.data) instead of the gradients",
        "keywords": [r"weights?|p\.data|parameters? (themselves|changed)", r"gradient|\.grad"]}


def clip_grad_norm(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad * p.grad).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.data.mul_(max_norm / (total + 1e-6))
    return total
