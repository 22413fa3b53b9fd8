META = {'exercise': '02.causal_mask',
        'cause': 'fills the mask with Python loops in a tensor made on the CPU: the device argument is ignored',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': False}


def causal_mask(T, device=None):
    mask = torch.zeros(T, T, dtype=torch.bool)
    for i in range(T):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
