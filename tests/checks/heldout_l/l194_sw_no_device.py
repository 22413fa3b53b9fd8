META = {'exercise': '08.sliding_window_mask',
        'cause': 'ignores the device argument: the mask is made on the CPU',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T)
    i, j = idx[:, None], idx[None, :]
    mask = (i - j).abs() <= window
    if causal:
        mask = mask & (j <= i)
    return mask
