META = {'exercise': '07b.clip_grad_norm',
        'correct': True,
        'source': "torch.nn.utils.clip_grad_norm_'s algorithm (vector_norm of the per-tensor norms, clip_coef clamped to 1, mul_)"}


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    grads = [p.grad for p in parameters if p.grad is not None]
    if len(grads) == 0:
        return torch.tensor(0.0)
    norms = [torch.linalg.vector_norm(g, 2.0) for g in grads]
    total_norm = torch.linalg.vector_norm(torch.stack([norm.to(grads[0].device) for norm in norms]), 2.0)
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.device))
    return total_norm
