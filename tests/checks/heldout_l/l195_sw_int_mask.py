META = {'exercise': '08.sliding_window_mask',
        'cause': 'returns an int tensor of 0/1, not a boolean mask',
        'keywords': [r'bool', r'dtype', r'\bint(64|32)?\b', r'integer'],
        'kind': 'type',
        'single_edit': True}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T, device=device)
    i, j = idx[:, None], idx[None, :]
    mask = (i - j).abs() <= window
    if causal:
        mask = mask & (j <= i)
    return mask.int()
