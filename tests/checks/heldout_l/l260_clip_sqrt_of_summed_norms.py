META = {'exercise': '07b.clip_grad_norm',
        'cause': 'takes the square root of the sum of the per-parameter norms instead of the sum of their squares',
        'keywords': [r'square', r'sum of (the )?norms', r'global', r'sqrt', r'together'],
        'kind': 'math',
        'single_edit': False}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    total = torch.stack([p.grad.norm() for p in params]).sum().sqrt()
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total
