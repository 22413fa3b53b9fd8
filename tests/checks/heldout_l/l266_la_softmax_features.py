META = {'exercise': '08.linear_attention',
        'cause': 'uses softmax over the features as the feature map instead of elu(x) + 1',
        'keywords': [r'elu', r'feature map', r'\+ ?1', r'softmax'],
        'kind': 'math',
        'single_edit': False}


def linear_attention(q, k, v, causal=False):
    fq, fk = q.softmax(dim=-1), k.softmax(dim=-1)
    if causal:
        kv = torch.cumsum(fk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)
        num = torch.einsum("...td,...tdm->...tm", fq, kv)
        den = (fq * fk.cumsum(-2)).sum(-1, keepdim=True)
    else:
        num = fq @ (fk.transpose(-2, -1) @ v)
        den = fq @ fk.sum(-2).unsqueeze(-1)
    return num / den
