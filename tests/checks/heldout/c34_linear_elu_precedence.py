META = {"exercise": "08.linear_attention", "cause": "the feature map is written F.elu(x + 1) instead of F.elu(x) + 1, which is negative for x < -1 and not the map asked for", "keywords": [r"elu\(x\) ?\+ ?1", r"elu\(x ?\+ ?1\)", r"feature map", r"phi", r"positive|negative"]}


def linear_attention(q, k, v, causal=False):
    phi_q = F.elu(q + 1)
    phi_k = F.elu(k + 1)
    if not causal:
        S = phi_k.transpose(-2, -1) @ v                    # (..., d_k, d_v)
        z = phi_k.sum(dim=-2)                              # (..., d_k)
        num = phi_q @ S                                    # (..., T_q, d_v)
        den = phi_q @ z[..., None]                         # (..., T_q, 1)
        return num / den
    S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)   # (..., T, d_k, d_v)
    z = torch.cumsum(phi_k, dim=-2)                                    # (..., T, d_k)
    num = (phi_q[..., None, :] @ S).squeeze(-2)                        # (..., T, d_v)
    den = (phi_q * z).sum(-1, keepdim=True)
    return num / den
