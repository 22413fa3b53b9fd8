META = {'exercise': '07b.lr_at',
        'cause': 'computes the cosine with torch: returns a 0-dim tensor, not a float',
        'keywords': [r'\bfloat\b(?!\()', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'0-?d', r'(wrong|return) type', r'type (is|was|should be)', r'item\(\)'],
        'kind': 'type',
        'single_edit': True}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + torch.cos(torch.tensor(math.pi * t)))
