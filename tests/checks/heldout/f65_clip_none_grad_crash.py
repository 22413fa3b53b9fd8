META = {"exercise": "07b.clip_grad_norm",
        "cause": "does not skip parameters whose .grad is None: raises on a model with an unused parameter",
        "keywords": [r"None", r"skip|took no part|unused"]}


def clip_grad_norm(parameters, max_norm):
    params = list(parameters)
    total = torch.sqrt(sum(p.grad.pow(2).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total
