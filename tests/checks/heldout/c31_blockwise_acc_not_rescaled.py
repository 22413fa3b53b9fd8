META = {"exercise": "08.blockwise_attention", "cause": "when the running max grows, the running sum l is rescaled by exp(m - m_new) but the running output acc is not", "keywords": [r"rescal", r"alpha", r"\bacc\b|accumulat|running output", r"correction", r"exp\(m ?- ?m"]}


def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    T_k = k.size(-2)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for start in range(0, T_k, block_size):
        kb = k[..., start:start + block_size, :]
        vb = v[..., start:start + block_size, :]
        s = (q @ kb.transpose(-2, -1)) * scale                      # (..., T_q, block)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ vb
        m = m_new
    return acc / l
