META = {"exercise": "07b.clip_grad_norm",
        "cause": "returns total.item(), a Python float, instead of a 0-d tensor",
        "keywords": [r"0-d|tensor", r"float|\.item\(\)|python number"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total.item()
