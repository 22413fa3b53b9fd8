META = {'exercise': '05.layer_norm_backward',
        'correct': True,
        'source': "llm.c's layernorm_backward (dnorm = dout * w; dx = (dnorm - mean(dnorm) - norm * mean(dnorm * norm)) * rstd)"}


def layer_norm_backward(x, weight, grad_y, eps=1e-5):
    C = x.size(-1)
    mean = x.sum(-1, keepdim=True) / C
    xshift = x - mean
    var = (xshift ** 2).sum(-1, keepdim=True) / C
    rstd = (var + eps) ** -0.5
    norm = xshift * rstd
    db = grad_y.sum(tuple(range(grad_y.dim() - 1)))
    dw = (grad_y * norm).sum(tuple(range(grad_y.dim() - 1)))
    dnorm = grad_y * weight
    dx = dnorm - dnorm.mean(-1, keepdim=True) - norm * (dnorm * norm).mean(-1, keepdim=True)
    dx *= rstd
    return dx, dw, db
