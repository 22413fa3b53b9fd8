META = {"exercise": "07b.lr_at",
        "cause": "computes the warm-up fraction step / warmup before the branches: ZeroDivisionError when warmup = 0",
        "keywords": [r"warmup ?= ?0|no warm.?up|zero ?division|divi(de|sion) by (zero|0)"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    progress = (step + 1) / (warmup + 1)
    ramp = min(1.0, step / warmup)  # 0 ... 1 over the warm-up
    if step < warmup:
        return max_lr * progress
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
