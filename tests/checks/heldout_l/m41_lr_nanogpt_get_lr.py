META = {'exercise': '07b.lr_at',
        'correct': True,
        'source': 'nanoGPT train.py get_lr (warmup_iters, lr_decay_iters, decay_ratio, coeff)'}


def lr_at(step: int, warmup: int, total: int, max_lr: float, min_lr: float) -> float:
    it, warmup_iters, lr_decay_iters, learning_rate = step, warmup, total, max_lr
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    assert 0 <= decay_ratio <= 1
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)
