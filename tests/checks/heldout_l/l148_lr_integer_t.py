META = {'exercise': '07b.lr_at',
        'cause': 't uses integer division //: it is 0 until the last step',
        'keywords': [r'integer', r'//', r'floor div', r'constant', r'\bt\b'],
        'kind': 'math',
        'single_edit': True}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) // (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
