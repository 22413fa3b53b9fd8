META = {'exercise': '07b.clip_grad_norm',
        'cause': 'scales the weights (p.data) instead of their gradients',
        'keywords': [r'(the )?weights (are |were )?(changed|scaled|modified)', r'p\.data', r'instead of (the )?grad', r'parameters? (values|themselves)'],
        'kind': 'mode/state',
        'single_edit': False}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad * p.grad).sum() for p in params))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for p in params:
            p.data.mul_(factor)
    return total
