META = {"exercise": "07b.lr_at",
        "cause": "math.cos(t) without pi: the cosine covers only 1 radian and ends far above min_lr at step total",
        "keywords": [r"\bpi\b|π", r"min_lr at (step )?`?total|end(s)? (at|above)|half a cosine"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / (total - warmup)
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(t))
