META = {"exercise": "07b.clip_grad_norm",
        "cause": "iterates the parameters generator twice, so the second (scaling) pass sees nothing and no gradient is clipped",
        "keywords": [r"generator", r"once", r"exhaust", r"twice", r"not (clipped|scaled)"]}


def clip_grad_norm(parameters, max_norm):
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / (total + 1e-6))
    return total
