META = {'exercise': '02.causal_mask',
        'cause': 'tril(-1) leaves out the diagonal: a token may not attend to itself (and row 0 is empty)',
        'keywords': [r'diagonal', r'itself', r'empty row', r'tril\(-1\)', r'strict', r'no key'],
        'kind': 'math',
        'single_edit': True}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril(-1)
