META = {'exercise': '07b.clip_grad_norm',
        'cause': 'gives a parameter without a gradient a zero .grad: it should stay None',
        'keywords': [r'None', r'zero(s|ed)? grad', r'stays?', r'skip'],
        'kind': 'mode/state',
        'single_edit': False}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    params = list(parameters)
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    grads = [p.grad for p in params]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total
