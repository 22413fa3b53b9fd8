META = {"exercise": "08.linear_attention",
        "cause": "divides q by sqrt(d_k) before the feature map, a scaling linear attention does not have",
        "keywords": [r"scal", r"sqrt", r"d_?k"]}


def linear_attention(q, k, v, causal=False):
    q = q / math.sqrt(q.size(-1))
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)
        z = torch.cumsum(phi_k, dim=-2)
        return (phi_q[..., None, :] @ S).squeeze(-2) / (phi_q * z).sum(-1, keepdim=True)
    S = phi_k.transpose(-2, -1) @ v
    z = phi_k.sum(-2)
    return (phi_q @ S) / (phi_q @ z[..., None])
