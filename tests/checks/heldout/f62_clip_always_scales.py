META = {"exercise": "07b.clip_grad_norm",
        "cause": "scales by max_norm / total even when total is below max_norm: small gradients are scaled UP to max_norm",
        "keywords": [r"below|only when|under max_norm|smaller than|not above|less than", r"scaled? up|enlarg|increas|grow|nothing (should )?change"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    factor = max_norm / (total + 1e-6)
    for g in grads:
        g.mul_(factor)
    return total
