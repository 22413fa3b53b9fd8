META = {"exercise": "08.linear_attention",
        "cause": "in the causal case takes the cumulative sum of the outer products over dim -2 (the d_k axis) instead of the time axis -3",
        "keywords": [r"cumsum", r"causal", r"time (axis|dim)", r"dim=?-3", r"prefix"]}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-2)
        z = torch.cumsum(phi_k, dim=-2)
        return (phi_q[..., None, :] @ S).squeeze(-2) / (phi_q * z).sum(-1, keepdim=True)
    S = phi_k.transpose(-2, -1) @ v
    z = phi_k.sum(-2)
    return (phi_q @ S) / (phi_q @ z[..., None])
