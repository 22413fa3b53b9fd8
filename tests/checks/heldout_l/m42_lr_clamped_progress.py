META = {'exercise': '07b.lr_at',
        'correct': True,
        'source': 'one expression: progress clamped to [0, 1], warm-up factor min(1, (s + 1) / (w + 1))'}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    if step < warmup:
        return max_lr * min(1.0, (step + 1) / (warmup + 1))
    progress = min(1.0, max(0.0, (step - warmup) / (total - warmup)))
    return float(min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress)))
