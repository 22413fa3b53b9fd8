META = {'exercise': '08.blockwise_attention',
        'cause': 'the running output is not rescaled by exp(m - m_new) when the max grows',
        'keywords': [r'rescal', r'alpha', r"e\^\{?\(?m ?- ?m'", r'running', r'correction', r'max grows', r'\bacc\b', r'running output'],
        'kind': 'math',
        'single_edit': True}


def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    opts = dict(dtype=q.dtype, device=q.device)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), **opts)
    l = torch.zeros(q.shape[:-1] + (1,), **opts)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), **opts)
    for start in range(0, k.size(-2), block_size):
        s = q @ k[..., start:start + block_size, :].transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ v[..., start:start + block_size, :]
        m = m_new
    return acc / l
