META = {"exercise": "08.linear_attention", "correct": True, "source": "einsum formulation (fast-transformers style), cumsum over time for causal"}


def linear_attention(q, k, v, causal=False):
    Q, K = F.elu(q) + 1, F.elu(k) + 1
    if causal:
        KV = torch.einsum("...td,...te->...tde", K, v).cumsum(dim=-3)
        Z = 1.0 / torch.einsum("...td,...td->...t", Q, K.cumsum(dim=-2))
        return torch.einsum("...td,...tde,...t->...te", Q, KV, Z)
    KV = torch.einsum("...sd,...se->...de", K, v)
    Z = 1.0 / torch.einsum("...td,...d->...t", Q, K.sum(dim=-2))
    return torch.einsum("...td,...de,...t->...te", Q, KV, Z)
