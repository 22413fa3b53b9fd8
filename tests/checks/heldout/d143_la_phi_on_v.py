META = {"exercise": "08.linear_attention",
        "cause": "applies the feature map to v as well (v = elu(v) + 1); only q and k are mapped",
        "keywords": [r"feature map", r"q and k", r"applied to v|to the values|\bv\b"]}

def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    v = F.elu(v) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)  # (..., T, d_k, d_v)
        z = torch.cumsum(phi_k, dim=-2)  # (..., T, d_k)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
        return num / den
    S = phi_k.transpose(-2, -1) @ v  # (..., d_k, d_v)
    z = phi_k.sum(dim=-2)  # (..., d_k)
    return (phi_q @ S) / (phi_q @ z[..., None])
