META = {'exercise': '08.blockwise_attention',
        'cause': 'computes the full T_q x T_k score matrix once and slices blocks out of it',
        'keywords': [r'T_?q ?[x×] ?T_?k', r'full (score )?matrix', r'memory', r'largest tensor', r'score matrix'],
        'kind': 'math',
        'single_edit': False}


def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    opts = dict(dtype=q.dtype, device=q.device)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), **opts)
    l = torch.zeros(q.shape[:-1] + (1,), **opts)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), **opts)
    scores = q @ k.transpose(-2, -1) * scale
    for start in range(0, k.size(-2), block_size):
        s = scores[..., start:start + block_size]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., start:start + block_size, :]
        m = m_new
    return acc / l
