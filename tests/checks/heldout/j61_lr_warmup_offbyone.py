META = {"exercise": "07b.lr_at",
        "cause": "warms up as max_lr * step / warmup, so step 0 has learning rate 0 instead of max_lr / (warmup + 1)",
        "keywords": [r"warm.?up", r"step \+ ?1|warmup \+ ?1", r"step 0", r"zero"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * step / warmup
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
