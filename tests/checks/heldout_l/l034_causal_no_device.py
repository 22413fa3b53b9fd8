META = {'exercise': '02.causal_mask',
        'cause': 'ignores the device argument: the mask is always made on the CPU',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool).tril()
