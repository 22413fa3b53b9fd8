META = {"exercise": "07b.lr_at", "correct": True,
        "source": "warm-up branch includes step == warmup (it gives max_lr there too), floor first, cosine last"}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step > total:
        return float(min_lr)
    if step <= warmup:
        return max_lr * (step + 1) / (warmup + 1)
    progress = (step - warmup) / (total - warmup)
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    return min_lr + cosine * (max_lr - min_lr)
