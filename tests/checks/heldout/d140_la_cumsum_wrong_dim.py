META = {"exercise": "08.linear_attention",
        "cause": "causal: cumulative sum of the outer products over dim=-2 (the d_k axis) instead of dim=-3 (time), so S_i is not the sum over j <= i (shows only with causal=True)",
        "keywords": [r"cumsum", r"time|sequence", r"dim ?= ?-3|-3"]}

def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-2)  # (..., T, d_k, d_v)
        z = torch.cumsum(phi_k, dim=-2)  # (..., T, d_k)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
        return num / den
    S = phi_k.transpose(-2, -1) @ v  # (..., d_k, d_v)
    z = phi_k.sum(dim=-2)  # (..., d_k)
    return (phi_q @ S) / (phi_q @ z[..., None])
