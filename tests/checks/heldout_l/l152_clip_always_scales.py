META = {'exercise': '07b.clip_grad_norm',
        'cause': 'scales the gradients even when the norm is below max_norm (it then scales them up)',
        'keywords': [r'below', r'only when', r'above', r'scal\w* up', r'always', r'max_norm'],
        'kind': 'math',
        'single_edit': True}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if True:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total
