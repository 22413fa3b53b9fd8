META = {'exercise': '08.linear_attention',
        'cause': 'the causal cumulative sum of S runs over d_k (dim -2) instead of over time (dim -3)',
        'keywords': [r'cumsum', r'cumulative', r'(wrong|another|other|ignor\w*|last|first) (dim|axis)', r'\bdim( argument| is ignored)', r'time (dim|axis)', r'over time', r'along time', r'sequence', r'axis'],
        'kind': 'math',
        'single_edit': True}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        S = torch.cumsum(phi_k[..., :, None] * v[..., None, :], dim=-2)
        z = phi_k.cumsum(dim=-2)
        num = (phi_q[..., None, :] @ S).squeeze(-2)
        den = (phi_q * z).sum(dim=-1, keepdim=True)
    else:
        S = phi_k.transpose(-2, -1) @ v
        z = phi_k.sum(dim=-2)
        num = phi_q @ S
        den = phi_q @ z[..., None]
    return num / den
