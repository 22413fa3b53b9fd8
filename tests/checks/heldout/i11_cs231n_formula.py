META = {"exercise": "05.layer_norm_backward", "correct": True,
        "source": "cs231n batchnorm-style closed form adapted to the feature axis: dx = inv_std/N * (N*dxhat - sum(dxhat) - xhat*sum(dxhat*xhat)), with rsqrt"}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    N = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    xmu = x - mu
    var = (xmu ** 2).mean(-1, keepdim=True)
    inv_std = torch.rsqrt(var + eps)
    xhat = xmu * inv_std
    dxhat = grad_y * weight
    dx = inv_std / N * (N * dxhat - dxhat.sum(-1, keepdim=True) - xhat * (dxhat * xhat).sum(-1, keepdim=True))
    lead = tuple(range(x.dim() - 1))
    return dx, (grad_y * xhat).sum(dim=lead), grad_y.sum(dim=lead)
