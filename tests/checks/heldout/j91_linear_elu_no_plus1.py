META = {"exercise": "08.linear_attention",
        "cause": "uses phi(x) = elu(x) without the + 1, so features can be negative and the denominator can cross zero",
        "keywords": [r"\+ ?1", r"elu", r"feature map", r"\bphi\b", r"negative|positive"]}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q), F.elu(k)
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)
        z = torch.cumsum(phi_k, dim=-2)
        return (phi_q[..., None, :] @ S).squeeze(-2) / (phi_q * z).sum(-1, keepdim=True)
    S = phi_k.transpose(-2, -1) @ v
    z = phi_k.sum(-2)
    return (phi_q @ S) / (phi_q @ z[..., None])
