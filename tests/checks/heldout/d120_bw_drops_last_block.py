META = {"exercise": "08.blockwise_attention",
        "cause": "loops over range(T_k // block_size) full blocks only, dropping the last, shorter block of keys when T_k is not a multiple of block_size",
        "keywords": [r"last block", r"shorter|partial|remainder", r"multiple of block_size"]}

def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for b in range(k.size(-2) // block_size):
        start = b * block_size
        k_blk = k[..., start:start + block_size, :]
        v_blk = v[..., start:start + block_size, :]
        s = q @ k_blk.transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v_blk
        m = m_new
    return acc / l
