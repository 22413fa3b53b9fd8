META = {"exercise": "07b.lr_at",
        "cause": "computes the cosine progress as (step - warmup) / total instead of dividing by total - warmup, so the decay never reaches min_lr at step total",
        "keywords": [r"total ?- ?warmup", r"progress", r"\bt\b", r"min_lr.{0,30}total", r"cosine"]}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    t = (step - warmup) / total
    return min_lr + (max_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * t))
