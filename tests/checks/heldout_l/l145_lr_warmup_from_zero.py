META = {'exercise': '07b.lr_at',
        'cause': 'warm-up max_lr * step / warmup: step 0 has rate 0',
        'keywords': [r'warm-?up', r'step 0', r'step ?\+ ?1', r'warmup ?\+ ?1', r'zero'],
        'kind': 'math',
        'single_edit': True}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * step / warmup
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
