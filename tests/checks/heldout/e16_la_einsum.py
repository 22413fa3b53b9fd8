META = {"exercise": "08.linear_attention", "correct": True,
        "source": "einsum form adapted from the 'fast-transformers' (Katharopoulos et al.) CausalLinearAttention / LinearAttention reference code, with cumsum for the causal case"}


def linear_attention(q, k, v, causal=False):
    Q = F.elu(q) + 1
    K = F.elu(k) + 1
    if not causal:
        KV = torch.einsum("...sd,...sm->...dm", K, v)
        Z = 1.0 / torch.einsum("...ld,...d->...l", Q, K.sum(dim=-2))
        return torch.einsum("...ld,...dm,...l->...lm", Q, KV, Z)
    KV = torch.einsum("...sd,...sm->...sdm", K, v).cumsum(dim=-3)
    Z = 1.0 / torch.einsum("...ld,...ld->...l", Q, K.cumsum(dim=-2))
    return torch.einsum("...ld,...ldm,...l->...lm", Q, KV, Z)
