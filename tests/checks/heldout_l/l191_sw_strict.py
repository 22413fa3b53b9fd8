META = {'exercise': '08.sliding_window_mask',
        'cause': '|i - j| < window: the keys at distance exactly window are blocked',
        'keywords': [r'<=', r'exactly', r'strict', r'distance (of )?window', r'2 ?w ?\+ ?1|2w\+1', r'edge'],
        'kind': 'math',
        'single_edit': True}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T, device=device)
    i, j = idx[:, None], idx[None, :]
    mask = (i - j).abs() < window
    if causal:
        mask = mask & (j <= i)
    return mask
