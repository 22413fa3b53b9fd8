META = {'exercise': '07b.lr_at',
        'cause': 'the cosine decays to 0 instead of to min_lr (no min_lr offset)',
        'keywords': [r'min_lr', r'floor', r'to (0|zero)', r'offset'],
        'kind': 'math',
        'single_edit': True}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return max_lr * 0.5 * (1 + math.cos(math.pi * t))
