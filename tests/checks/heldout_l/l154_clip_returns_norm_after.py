META = {'exercise': '07b.clip_grad_norm',
        'cause': 'returns the norm after clipping, not before',
        'keywords': [r'(norm|total) after (the )?clipp', r'before clipping', r'clipped norm'],
        'kind': 'math',
        'single_edit': True}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return torch.sqrt(sum((g * g).sum() for g in grads))
