META = {'exercise': '02.attention_backward',
        'correct': True,
        'source': "FlashAttention-2's backward (Dao 2023, Algorithm 2): D = rowsum(dO * O), dS = P * (dP - D)"}


def attention_backward(q, k, v, grad_out, mask=None):
    softmax_scale = q.shape[-1] ** -0.5
    S = torch.matmul(q, k.transpose(-1, -2)) * softmax_scale
    if mask is not None:
        S = S.masked_fill(~mask, float("-inf"))
    P = torch.softmax(S, dim=-1)
    O = P @ v
    D = (grad_out * O).sum(dim=-1, keepdim=True)
    dV = P.transpose(-1, -2) @ grad_out
    dP = grad_out @ v.transpose(-1, -2)
    dS = P * (dP - D)
    dQ = (dS @ k) * softmax_scale
    dK = (dS.transpose(-1, -2) @ q) * softmax_scale
    return dQ, dK, dV
