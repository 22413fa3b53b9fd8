META = {'exercise': '07b.clip_grad_norm',
        'cause': 'clips each gradient by its own norm instead of by the global norm',
        'keywords': [r'global', r'each (gradient|parameter)', r'per[- ]parameter', r'own norm', r'together'],
        'kind': 'math',
        'single_edit': False}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    for g in grads:
        norm = g.norm()
        if norm > max_norm:
            g.mul_(max_norm / (norm + 1e-6))
    return total
