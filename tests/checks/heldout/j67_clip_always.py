META = {"exercise": "07b.clip_grad_norm",
        "cause": "scales the gradients unconditionally, so gradients below max_norm are scaled up",
        "keywords": [r"below", r"only when", r"unconditional", r"scaled up|increas|enlarg", r"max_norm"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total
