META = {"exercise": "08.blockwise_attention", "cause": "the scores are not divided by sqrt(d_k)",
        "keywords": [r"sqrt", r"√", r"scal"]}


def blockwise_attention(q, k, v, block_size=64):
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    for s in range(0, k.size(-2), block_size):
        scores = q @ k[..., s:s + block_size, :].transpose(-1, -2)
        m_new = torch.maximum(m, scores.amax(-1, keepdim=True))
        p = torch.exp(scores - m_new)
        a = torch.exp(m - m_new)
        l = l * a + p.sum(-1, keepdim=True)
        acc = acc * a + p @ v[..., s:s + block_size, :]
        m = m_new
    return acc / l
