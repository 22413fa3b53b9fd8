META = {"exercise": "07b.lr_at", "correct": True,
        "source": "cos^2(pi t / 2) = (1 + cos pi t) / 2, t clamped to [0, 1] instead of a separate floor branch"}


def lr_at(step, warmup, total, max_lr, min_lr):
    if step < warmup:
        return max_lr * (step + 1) / (warmup + 1)
    t = min(1.0, (step - warmup) / (total - warmup))
    return float(min_lr + (max_lr - min_lr) * math.cos(math.pi * t / 2) ** 2)
