META = {"exercise": "07b.lr_at",
        "cause": "0.5 * (1 - cos(pi t)): the rate rises from min_lr to max_lr during the decay instead of falling",
        "keywords": [r"1 ?\+ ?cos|1 ?- ?cos|sign", r"rise|increas|upside|inverted|wrong direction", r"max_lr at (step )?`?warmup|start(s)? at max_lr"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 - math.cos(math.pi * t))
