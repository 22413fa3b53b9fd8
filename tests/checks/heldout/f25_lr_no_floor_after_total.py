META = {"exercise": "07b.lr_at",
        "cause": "no case for step > total: the cosine goes on past t = 1 and the rate climbs back up instead of staying at min_lr",
        "keywords": [r"after the end|past (the end|`?total)|beyond|step ?> ?total|after `?total", r"floor|stay|min_lr"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
