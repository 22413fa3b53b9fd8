META = {"exercise": "08.blockwise_attention", "cause": "the key block is sliced k[..., start:block_size] instead of k[..., start:start + block_size], so later blocks are empty or wrong",
        "keywords": [r"slice", r"block", r"start ?\+ ?block_size", r"keys? (are )?(skipped|missing|ignored)", r"every key"]}


def blockwise_attention(q, k, v, block_size=64):
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full((*q.shape[:-1], 1), -float("inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    o = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)
    for start in range(0, k.shape[-2], block_size):
        kb, vb = k[..., start:block_size, :], v[..., start:block_size, :]
        if kb.shape[-2] == 0:
            continue
        s = (q @ kb.transpose(-2, -1)) * scale
        m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = corr * l + p.sum(-1, keepdim=True)
        o = corr * o + p @ vb
        m = m_new
    return o / l
