META = {"exercise": "07b.clip_grad_norm",
        "cause": "iterates the parameters generator twice (once for the norm, once to scale): the second loop sees nothing, so no gradient is ever clipped",
        "keywords": [r"generator", r"read (only )?once|twice|second (pass|loop)|exhausted|list\("]}


def clip_grad_norm(parameters, max_norm):
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(factor)
    return total
