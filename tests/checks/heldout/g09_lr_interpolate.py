META = {"exercise": "07b.lr_at", "correct": True,
        "source": "the cosine as an interpolation weight w from 1 to 0: max_lr * w + min_lr * (1 - w)"}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return (step + 1) / (warmup + 1) * max_lr
    if step >= total:
        return float(min_lr)
    w = (1 + math.cos(math.pi * (step - warmup) / (total - warmup))) / 2
    return max_lr * w + min_lr * (1 - w)
