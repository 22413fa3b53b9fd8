META = {"exercise": "07b.lr_at",
        "cause": "warm-up max_lr * step / warmup (the older nanoGPT line) instead of (step + 1) / (warmup + 1): step 0 has rate 0",
        "keywords": [r"warm.?up", r"step \+ 1|\(step ?\+ ?1\)|warmup \+ 1", r"step 0|first step|is 0|zero"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * step / warmup
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
