META = {"exercise": "07b.clip_grad_norm", "correct": True,
        "source": "torch.linalg.vector_norm of all gradients flattened and concatenated; factor as a tensor"}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = torch.linalg.vector_norm(torch.cat([g.reshape(-1) for g in grads]))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total
