META = {'exercise': '08.linear_attention',
        'cause': 'the feature map is elu(x) without + 1: features can be negative and the denominator near 0',
        'keywords': [r'\+ ?1', r'elu', r'feature map', r'positive', r'negative'],
        'kind': 'math',
        'single_edit': True}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q), F.elu(k)
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)
        z = phi_k.cumsum(dim=-2)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
    else:
        S = phi_k.transpose(-2, -1) @ v
        z = phi_k.sum(dim=-2)
        num = phi_q @ S
        den = phi_q @ z[..., None]
    return num / den
