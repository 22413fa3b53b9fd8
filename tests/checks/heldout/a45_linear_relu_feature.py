META = {"exercise": "08.linear_attention", "cause": "feature map relu(x) instead of elu(x) + 1",
        "keywords": [r"elu", r"feature map", r"phi", r"\+ ?1"]}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.relu(q) + 1e-6, F.relu(k) + 1e-6
    if causal:
        S = torch.cumsum(torch.einsum("...td,...te->...tde", phi_k, v), dim=-3)
        z = torch.cumsum(phi_k, dim=-2)
        num = torch.einsum("...td,...tde->...te", phi_q, S)
        den = (phi_q * z).sum(-1, keepdim=True)
        return num / den
    S = torch.einsum("...td,...te->...de", phi_k, v)
    z = phi_k.sum(-2)
    return (phi_q @ S) / (phi_q @ z.unsqueeze(-1))
