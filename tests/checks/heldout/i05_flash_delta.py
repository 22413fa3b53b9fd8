META = {"exercise": "02.attention_backward", "correct": True,
        "source": "FlashAttention-2 backward: D = rowsum(dO * O) replaces rowsum(dP * P), einsum throughout"}


def attention_backward(q, k, v, grad_out, mask=None):
    scale = q.shape[-1] ** -0.5
    s = torch.einsum("...id,...jd->...ij", q, k) * scale
    if mask is not None:
        s = s.masked_fill(mask.logical_not(), float("-inf"))
    p = torch.softmax(s, dim=-1)
    o = torch.einsum("...ij,...jd->...id", p, v)
    dv = torch.einsum("...ij,...id->...jd", p, grad_out)
    dp = torch.einsum("...id,...jd->...ij", grad_out, v)
    delta = (grad_out * o).sum(-1, keepdim=True)  # = rowsum(dp * p)
    ds = p * (dp - delta) * scale
    dq = torch.einsum("...ij,...jd->...id", ds, k)
    dk = torch.einsum("...ij,...id->...jd", ds, q)
    return dq, dk, dv
