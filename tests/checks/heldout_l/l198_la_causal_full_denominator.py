META = {'exercise': '08.linear_attention',
        'cause': 'causal: the denominator uses the sum over all keys instead of the cumulative sum',
        'keywords': [r'denominator', r'\bz\b', r'cumulative', r'cumsum', r'normali[sz]'],
        'kind': 'math',
        'single_edit': True}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-3)
        z = phi_k.sum(dim=-2, keepdim=True)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
    else:
        S = phi_k.transpose(-2, -1) @ v
        z = phi_k.sum(dim=-2)
        num = phi_q @ S
        den = phi_q @ z[..., None]
    return num / den
