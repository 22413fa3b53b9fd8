META = {"exercise": "08.blockwise_attention", "correct": True,
        "source": "torch.split over the key blocks with a log-sum-exp style running state (as in the FlashAttention paper's Algorithm 1, forward only), normalizing the accumulator at each step"}


def blockwise_attention(q, k, v, block_size=64):
    scale = q.size(-1) ** -0.5
    shape = q.shape[:-1] + (1,)
    m = q.new_full(shape, float("-inf"))
    l = q.new_zeros(shape)
    o = q.new_zeros(q.shape[:-1] + (v.size(-1),))
    for k_blk, v_blk in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
        s = torch.matmul(q, k_blk.transpose(-1, -2)) * scale
        m_blk = s.amax(-1, keepdim=True)
        p = torch.exp(s - m_blk)
        l_blk = p.sum(-1, keepdim=True)
        m_new = torch.maximum(m, m_blk)
        l_new = torch.exp(m - m_new) * l + torch.exp(m_blk - m_new) * l_blk
        o = (l * torch.exp(m - m_new) * o + torch.exp(m_blk - m_new) * (p @ v_blk)) / l_new
        m, l = m_new, l_new
    return o
