META = {"exercise": "07b.clip_grad_norm",
        "cause": "g = g * factor in a loop over the gradient list: rebinds the loop variable, p.grad is never changed",
        "keywords": [r"in.?place|mul_|p\.grad ?=", r"not (changed|clipped|scaled)|unchanged|never|rebind|local|new tensor"]}


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g = g * factor
    return total
