META = {"exercise": "07b.lr_at",
        "cause": "min_lr + max_lr * 0.5 * (1 + cos): forgot to subtract min_lr from the amplitude, the decay starts at max_lr + min_lr",
        "keywords": [r"max_lr ?- ?min_lr|amplitude", r"max_lr \+ min_lr|above max_lr|exceeds? max_lr", r"max_lr at (step )?`?warmup|start(s)? at max_lr"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + max_lr * 0.5 * (1 + math.cos(math.pi * t))
