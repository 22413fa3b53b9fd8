META = {"exercise": "08.linear_attention", "cause": "causal=True is ignored: every query sums over all keys, the future included",
        "keywords": [r"causal", r"cumsum", r"future", r"j <= i"]}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    S = phi_k.transpose(-2, -1) @ v
    z = phi_k.sum(dim=-2, keepdim=True)
    return (phi_q @ S) / (phi_q * z).sum(-1, keepdim=True)
