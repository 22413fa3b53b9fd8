META = {"exercise": "07b.lr_at",
        "cause": "t = (step - warmup) // (total - warmup), floor division: t is 0 for every step of the decay but the last, the rate stays at max_lr and drops to min_lr at total",
        "keywords": [r"//|floor|integer division", r"stays? at max_lr|flat|constant|does not (fall|decay)"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) // (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
