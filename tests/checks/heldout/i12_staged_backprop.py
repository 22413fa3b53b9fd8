META = {"exercise": "05.layer_norm_backward", "correct": True,
        "source": "Karpathy makemore part 4 style: staged manual backprop through every intermediate (xmu, var, std, inv)"}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    d = x.shape[-1]
    mu = x.sum(-1, keepdim=True) / d
    xmu = x - mu
    sq = xmu ** 2
    var = sq.sum(-1, keepdim=True) / d
    std = (var + eps) ** 0.5
    inv = 1.0 / std
    xhat = xmu * inv
    # y = xhat * weight + bias
    dweight = (grad_y * xhat).flatten(0, -2).sum(0)
    dbias = grad_y.flatten(0, -2).sum(0)
    dxhat = grad_y * weight
    dinv = (dxhat * xmu).sum(-1, keepdim=True)
    dxmu = dxhat * inv
    dstd = -dinv / std ** 2
    dvar = dstd * 0.5 / std
    dsq = dvar.expand_as(sq) / d
    dxmu = dxmu + 2 * xmu * dsq
    dx = dxmu.clone()
    dmu = -dxmu.sum(-1, keepdim=True)
    dx = dx + dmu / d
    return dx, dweight, dbias
