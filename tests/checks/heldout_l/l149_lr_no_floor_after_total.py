META = {'exercise': '07b.lr_at',
        'cause': 'no case for step > total: the cosine rises again after the end',
        'keywords': [r'after (the )?(end|total)', r'step ?> ?total', r'rises?', r'min_lr', r'floor'],
        'kind': 'math',
        'single_edit': False}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
