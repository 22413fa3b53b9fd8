META = {'exercise': '07b.clip_grad_norm',
        'cause': 'reads the parameters generator twice: the second pass finds it empty, so nothing is scaled',
        'keywords': [r'generator', r'twice', r'once', r'exhaust', r'empty', r'nothing (is |was )?(scaled|clipped)'],
        'kind': 'type',
        'single_edit': False}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    total = torch.sqrt(sum((p.grad * p.grad).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(factor)
    return total
