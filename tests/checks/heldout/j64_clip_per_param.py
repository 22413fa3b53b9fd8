META = {"exercise": "07b.clip_grad_norm",
        "cause": "clips each parameter's gradient by its own norm instead of one global norm over all gradients",
        "keywords": [r"global", r"per.?param", r"each (parameter|gradient)", r"one factor|same factor", r"total"]}


def clip_grad_norm(parameters, max_norm):
    norms = []
    for p in parameters:
        if p.grad is None:
            continue
        n = p.grad.norm()
        norms.append(n)
        if n > max_norm:
            p.grad.mul_(max_norm / (n + 1e-6))
    return torch.sqrt(sum(n * n for n in norms))
