META = {'exercise': '08.linear_attention',
        'correct': True,
        'source': 'fast-transformers LinearAttention (einsum KV = phi(K)ᵀ V, Z = 1 / (phi(Q) · sum phi(K))) and its causal cumsum counterpart, adapted to (..., T, d)'}


def linear_attention(q, k, v, causal=False):
    Q = F.elu(q) + 1
    K = F.elu(k) + 1
    if not causal:
        KV = torch.einsum("...sd,...sm->...dm", K, v)
        Z = 1 / (torch.einsum("...ld,...d->...l", Q, K.sum(dim=-2)))
        return torch.einsum("...ld,...dm,...l->...lm", Q, KV, Z)
    KV = torch.einsum("...sd,...sm->...sdm", K, v).cumsum(dim=-3)
    Z = 1 / torch.einsum("...ld,...ld->...l", Q, K.cumsum(dim=-2))
    return torch.einsum("...ld,...ldm,...l->...lm", Q, KV, Z)
