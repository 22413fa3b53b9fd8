META = {"exercise": "07b.clip_grad_norm",
        "cause": "clips each gradient by its own norm instead of the global norm of all gradients together (the direction of the whole gradient changes)",
        "keywords": [r"global|all (the )?gradients together|one (long )?vector|end to end", r"each (gradient|parameter)|per.?(gradient|parameter)|its own norm|separately"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    norms = [g.norm() for g in grads]
    for g, n in zip(grads, norms):
        if n > max_norm:
            g.mul_(max_norm / (n + 1e-6))
    return torch.sqrt(sum(n ** 2 for n in norms))
