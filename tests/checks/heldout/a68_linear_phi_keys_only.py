META = {"exercise": "08.linear_attention", "cause": "the feature map is applied to the keys only, not to the queries",
        "keywords": [r"quer", r"phi\(q", r"feature map", r"elu"]}


def linear_attention(q, k, v, causal=False):
    phi_k = F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)
        z = torch.cumsum(phi_k, dim=-2)
        return (q.unsqueeze(-2) @ S).squeeze(-2) / (q * z).sum(-1, keepdim=True)
    S = phi_k.transpose(-2, -1) @ v
    z = phi_k.sum(-2)
    return (q @ S) / (q @ z.unsqueeze(-1))
