META = {"exercise": "07b.clip_grad_norm", "correct": True,
        "source": "PyTorch's own structure: the norm of the stacked per-gradient norms; p.grad reassigned"}


def clip_grad_norm(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return torch.tensor(0.0)
    total = torch.stack([p.grad.norm(2) for p in params]).norm(2)
    if total.item() > max_norm:
        factor = max_norm / (total + 1e-6)
        for p in params:
            p.grad = p.grad * factor
    return total
