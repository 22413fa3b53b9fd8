META = {'exercise': '08.blockwise_attention',
        'correct': True,
        'source': 'FlashAttention-1 forward (Dao et al. 2022, Algorithm 1): output kept normalized, O = diag(l_new)^-1 (diag(l) e^{m - m_new} O + e^{m~ - m_new} P~ V)'}


def blockwise_attention(q, k, v, block_size=64):
    softmax_scale = q.size(-1) ** -0.5
    O = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    l = torch.zeros(*q.shape[:-1], 1, dtype=q.dtype, device=q.device)
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
    for j in range(0, k.size(-2), block_size):
        Kj, Vj = k[..., j:j + block_size, :], v[..., j:j + block_size, :]
        S = torch.matmul(q, Kj.transpose(-1, -2)) * softmax_scale
        m_tilde = S.amax(dim=-1, keepdim=True)
        P_tilde = torch.exp(S - m_tilde)
        l_tilde = P_tilde.sum(dim=-1, keepdim=True)
        m_new = torch.maximum(m, m_tilde)
        l_new = torch.exp(m - m_new) * l + torch.exp(m_tilde - m_new) * l_tilde
        O = (l * torch.exp(m - m_new) * O + torch.exp(m_tilde - m_new) * (P_tilde @ Vj)) / l_new
        l, m = l_new, m_new
    return O
