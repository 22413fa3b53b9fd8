META = {"exercise": "07b.lr_at",
        "cause": "has no case for step > total, so the cosine climbs back up after the end instead of staying at min_lr",
        "keywords": [r"after.{0,20}end", r"step > total", r"floor", r"min_lr", r"beyond|past total"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
