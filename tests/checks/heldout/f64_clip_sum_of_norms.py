META = {"exercise": "07b.clip_grad_norm",
        "cause": "the total as the sum of the per-gradient norms instead of the square root of the sum of all squares: too large whenever there are several gradients",
        "keywords": [r"sum of (the )?(per.?\w+ )?norms|norms are added|adds? the norms", r"squares|sqrt|square root|one (long )?vector|end to end|sum_p sum_i"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = sum(g.norm() for g in grads)
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total
