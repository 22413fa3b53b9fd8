META = {"exercise": "08.blockwise_attention", "cause": "the accumulated output is not rescaled by exp(m_old - m_new) when the running max grows",
        "keywords": [r"rescal", r"alpha", r"running max", r"online", r"exp\(m"]}


def blockwise_attention(q, k, v, block_size=64):
    scale = q.size(-1) ** -0.5
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    for s in range(0, k.size(-2), block_size):
        scores = q @ k[..., s:s + block_size, :].transpose(-1, -2) * scale
        m_new = torch.maximum(m, scores.amax(-1, keepdim=True))
        p = torch.exp(scores - m_new)
        l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
        acc = acc + p @ v[..., s:s + block_size, :]
        m = m_new
    return acc / l
