META = {"exercise": "07b.lr_at",
        "cause": "warms up from min_lr (min_lr + (max_lr - min_lr) * (step + 1) / (warmup + 1)) instead of from 0 as the formula says",
        "keywords": [r"warm.?up", r"from 0|from zero|starts? at 0"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return min_lr + (max_lr - min_lr) * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
