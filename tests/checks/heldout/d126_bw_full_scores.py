META = {"exercise": "08.blockwise_attention",
        "cause": "computes the full (T_q, T_k) score matrix once and then slices it block by block: exact output but the memory is that of naive attention",
        "keywords": [r"memory", r"full score", r"T_q.*T_k|T ?× ?T|T x T", r"largest tensor", r"matrix"]}

def blockwise_attention(q, k, v, block_size=64):
    scale = 1.0 / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    scores = q @ k.transpose(-2, -1) * scale  # (..., T_q, T_k), computed once
    for start in range(0, k.size(-2), block_size):
        k_blk = k[..., start:start + block_size, :]
        v_blk = v[..., start:start + block_size, :]
        s = scores[..., start:start + block_size]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v_blk
        m = m_new
    return acc / l
