META = {"exercise": "07b.clip_grad_norm", "correct": True, "source": "PyTorch-style: norm of per-gradient norms via torch.linalg.vector_norm, multiply only when factor < 1"}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    factor = max_norm / (total + 1e-6)
    if total > max_norm:
        for g in grads:
            g.mul_(factor)
    return total
