META = {'exercise': '07b.clip_grad_norm',
        'cause': 'returns total.item(), a Python float, not a 0-d tensor',
        'keywords': [r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'\bfloat\b(?!\()', r'0-?d', r'item\(\)', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': True}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total.item()
