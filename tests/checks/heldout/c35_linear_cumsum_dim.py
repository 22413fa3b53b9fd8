META = {"exercise": "08.linear_attention", "cause": "in the causal branch the outer products are cumulated along dim=-2 (the d_k axis) instead of along the sequence axis (dim=-3), so S_i is not the sum over keys j <= i", "keywords": [r"cumsum", r"dim ?= ?-3", r"dim ?= ?-2", r"sequence|time", r"wrong (dim|axis)"]}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        kv = phi_k.unsqueeze(-1) * v.unsqueeze(-2)          # (..., T, d_k, d_v)
        S = kv.cumsum(dim=-2)
        z = phi_k.cumsum(dim=-2)                            # (..., T, d_k)
        num = (phi_q.unsqueeze(-2) @ S).squeeze(-2)         # (..., T, d_v)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
    else:
        S = phi_k.transpose(-2, -1) @ v
        z = phi_k.sum(dim=-2)
        num = phi_q @ S
        den = phi_q @ z.unsqueeze(-1)
    return num / den
