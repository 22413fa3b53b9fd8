META = {"exercise": "08.linear_attention",
        "cause": "causal: the numerator uses cumulative sums but the normalizer z sums over all keys (phi_k.sum), so the denominator sees the future (shows only with causal=True)",
        "keywords": [r"\bz\b", r"denominator|normaliz", r"cumulative|cumsum", r"future"]}

def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)  # (..., T, d_k, d_v)
        z = phi_k.sum(dim=-2, keepdim=True)  # (..., 1, d_k)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
        return num / den
    S = phi_k.transpose(-2, -1) @ v  # (..., d_k, d_v)
    z = phi_k.sum(dim=-2)  # (..., d_k)
    return (phi_q @ S) / (phi_q @ z[..., None])
