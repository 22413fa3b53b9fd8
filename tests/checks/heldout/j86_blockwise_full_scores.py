META = {"exercise": "08.blockwise_attention",
        "cause": "computes the full (T_q, T_k) score matrix once and then walks over its column blocks, so the memory saving is lost",
        "keywords": [r"memory", r"full.{0,20}(score|matrix)", r"largest tensor", r"T_q.{0,5}T_k", r"bytes"]}


def blockwise_attention(q, k, v, block_size=64):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for start in range(0, k.size(-2), block_size):
        s = scores[..., start:start + block_size]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = (s - m_new).exp()
        alpha = (m - m_new).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., start:start + block_size, :]
        m = m_new
    return acc / l
