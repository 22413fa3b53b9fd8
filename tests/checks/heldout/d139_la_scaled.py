META = {"exercise": "08.linear_attention",
        "cause": "divides q by sqrt(d_k) before the feature map, as in softmax attention, although linear attention has no scaling",
        "keywords": [r"scal", r"sqrt", r"d_k"]}

def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q / math.sqrt(q.size(-1))) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)  # (..., T, d_k, d_v)
        z = torch.cumsum(phi_k, dim=-2)  # (..., T, d_k)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
        return num / den
    S = phi_k.transpose(-2, -1) @ v  # (..., d_k, d_v)
    z = phi_k.sum(dim=-2)  # (..., d_k)
    return (phi_q @ S) / (phi_q @ z[..., None])
