META = {'exercise': '07b.clip_grad_norm',
        'correct': True,
        'source': 'all gradients concatenated into one vector for the norm; p.grad = p.grad * factor'}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    total = torch.cat([p.grad.reshape(-1) for p in params]).norm()
    if total.item() > max_norm:
        factor = max_norm / (total + 1e-6)
        for p in params:
            p.grad = p.grad * factor
    return total
