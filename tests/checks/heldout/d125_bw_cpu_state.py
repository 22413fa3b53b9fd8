META = {"exercise": "08.blockwise_attention",
        "cause": "creates the running max with torch.full(...) without device=, so on a GPU it mixes devices and raises (shows only on a non-CPU device)",
        "keywords": [r"device", r"cpu", r"cuda", r"q\.device"]}

def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for start in range(0, k.size(-2), block_size):
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
