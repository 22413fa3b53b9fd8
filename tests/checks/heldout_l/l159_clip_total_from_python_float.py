META = {'exercise': '07b.clip_grad_norm',
        'cause': "the norm is summed as Python floats and wrapped in torch.tensor: a float32 CPU tensor whatever the gradients' device and dtype",
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': True}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.tensor(math.sqrt(sum((g * g).sum().item() for g in grads)))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total
