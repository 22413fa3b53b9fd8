META = {"exercise": "07b.lr_at",
        "cause": "the cosine decays to 0 (max_lr * 0.5 * (1 + cos)), ignoring the floor min_lr, though the step > total case returns min_lr",
        "keywords": [r"min_lr", r"floor", r"to 0|to zero"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return max_lr * 0.5 * (1 + math.cos(math.pi * t))
