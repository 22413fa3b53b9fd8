META = {'exercise': '02.causal_mask',
        'cause': 'triu: True above the diagonal, so each query sees the future',
        'keywords': [r'triu', r'future', r'upper', r'above the diagonal', r'transpos'],
        'kind': 'math',
        'single_edit': True}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).triu()
