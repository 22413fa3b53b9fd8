META = {"exercise": "07b.clip_grad_norm", "correct": True,
        "source": "one factor torch.where(total > max_norm, max_norm / (total + 1e-6), 1) applied to every gradient, without a Python branch"}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = sum(g.pow(2).sum() for g in grads).sqrt()
    factor = torch.where(total > max_norm, max_norm / (total + 1e-6), torch.ones_like(total))
    for g in grads:
        g.mul_(factor)
    return total
