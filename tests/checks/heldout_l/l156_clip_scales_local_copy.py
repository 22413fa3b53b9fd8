META = {'exercise': '07b.clip_grad_norm',
        'cause': "g = g * factor rebinds a local name: the parameters' gradients are never scaled",
        'keywords': [r'in[- ]?place', r'mul_', r'never (scaled|clipped|changed)', r'unchanged', r'not (scaled|clipped)', r'local'],
        'kind': 'mode/state',
        'single_edit': True}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g = g * factor
    return total
