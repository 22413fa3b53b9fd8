META = {'exercise': '08.linear_attention',
        'correct': True,
        'source': "causal linear attention as an RNN over time (state S, z), the notebook's open exercise 3"}


def linear_attention(q, k, v, causal=False):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    if not causal:
        S = phi_k.transpose(-2, -1) @ v
        return (phi_q @ S) / (phi_q @ phi_k.sum(-2).unsqueeze(-1))
    S = torch.zeros(*q.shape[:-2], q.size(-1), v.size(-1), dtype=q.dtype, device=q.device)
    z = torch.zeros(*q.shape[:-2], q.size(-1), dtype=q.dtype, device=q.device)
    outs = []
    for t in range(q.size(-2)):
        S = S + phi_k[..., t, :, None] * v[..., t, None, :]
        z = z + phi_k[..., t, :]
        qt = phi_q[..., t, :]
        outs.append((qt[..., None, :] @ S).squeeze(-2) / (qt * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
