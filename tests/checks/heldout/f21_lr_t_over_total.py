META = {"exercise": "07b.lr_at",
        "cause": "t = step / total instead of (step - warmup) / (total - warmup): the cosine does not start at max_lr after the warm-up",
        "keywords": [r"step ?- ?warmup|total ?- ?warmup", r"max_lr at (step )?`?warmup|start(s)? at max_lr|after the warm.?up"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = step / total
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
