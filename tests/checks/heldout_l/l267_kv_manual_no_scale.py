META = {'exercise': '08.kv_cache_step',
        'cause': 'attends with softmax(q k_allᵀ) written by hand, without dividing by sqrt(d_head)',
        'keywords': [r'sqrt', r'scal', r'd_head', r'd_k'],
        'kind': 'math',
        'single_edit': False}


def kv_cache_step(q, k, v, cache=None):
    if cache is not None:
        k = torch.cat((cache[0], k), dim=2)
        v = torch.cat((cache[1], v), dim=2)
    weights = torch.softmax(q @ k.transpose(2, 3), dim=-1)
    return weights @ v, (k, v)
