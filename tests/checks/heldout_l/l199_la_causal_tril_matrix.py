META = {'exercise': '08.linear_attention',
        'cause': 'causal case builds the T x T matrix tril(phi(q) phi(k)ᵀ), which the exercise forbids',
        'keywords': [r'T ?[x×] ?T', r'matrix', r'memory', r'cumsum', r'largest tensor'],
        'kind': 'math',
        'single_edit': False}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        A = (phi_q @ phi_k.transpose(-2, -1)).tril()
        num = A @ v
        den = A.sum(dim=-1, keepdim=True)
    else:
        S = phi_k.transpose(-2, -1) @ v
        z = phi_k.sum(dim=-2)
        num = phi_q @ S
        den = phi_q @ z[..., None]
    return num / den
