META = {"exercise": "08.blockwise_attention",
        "cause": "loops over range(0, T_k - block_size + 1, block_size), skipping the last, shorter block of keys",
        "keywords": [r"last.{0,20}block", r"shorter", r"remainder|tail|leftover", r"multiple of block_size", r"T_k"]}


def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for start in range(0, k.size(-2) - block_size + 1, block_size):
        s = q @ k[..., start:start + block_size, :].transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., start:start + block_size, :]
        m = m_new
    return acc / l
