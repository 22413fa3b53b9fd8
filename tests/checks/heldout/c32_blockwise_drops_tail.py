META = {"exercise": "08.blockwise_attention", "cause": "loops over T_k // block_size full blocks only, so when T_k is not a multiple of block_size the last, shorter block of keys is never visited", "keywords": [r"last block", r"shorter", r"remainder|leftover", r"multiple of", r"T_k ?// ?block_size|not divisible"]}


def blockwise_attention(q, k, v, block_size=64):
    d_k = q.size(-1)
    n_blocks = max(1, k.size(-2) // block_size)
    m = torch.full((*q.shape[:-1], 1), -math.inf, dtype=q.dtype, device=q.device)
    l = torch.zeros((*q.shape[:-1], 1), dtype=q.dtype, device=q.device)
    acc = torch.zeros((*q.shape[:-1], v.size(-1)), dtype=q.dtype, device=q.device)
    for b in range(n_blocks):
        kb = k[..., b * block_size:(b + 1) * block_size, :]
        vb = v[..., b * block_size:(b + 1) * block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(d_k)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(-1, keepdim=True)
        acc = alpha * acc + p @ vb
        m = m_new
    return acc / l
