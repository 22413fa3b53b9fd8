META = {"exercise": "08.linear_attention", "correct": True,
        "source": "https://github.com/idiap/fast-transformers/blob/master/fast_transformers/attention/linear_attention.py",
        "adapted": "LinearAttention (and causal_linear_attention.py) with elu_feature_map, eps=1e-6 kept; the (N, L, H, D) einsums "
                   "rewritten for (..., T, d); the C++ causal_dot_product replaced by its cumsum definition"}


def linear_attention(queries, keys, values, causal=False, eps=1e-6):
    Q = F.elu(queries) + 1
    K = F.elu(keys) + 1
    if causal:
        Z = 1 / (torch.einsum("...li,...li->...l", Q, K.cumsum(-2)) + eps)
        KV = torch.einsum("...ld,...lm->...ldm", K, values).cumsum(-3)
        V = torch.einsum("...ld,...ldm->...lm", Q, KV)
        return V * Z[..., None]
    KV = torch.einsum("...sd,...sm->...md", K, values)
    Z = 1 / (torch.einsum("...ld,...d->...l", Q, K.sum(dim=-2)) + eps)
    return torch.einsum("...ld,...md,...l->...lm", Q, KV, Z)
