META = {'exercise': '08.sliding_window_mask',
        'cause': 'causal keeps j >= i (the future) instead of j <= i',
        'keywords': [r'future', r'not causal', r'causal(ity)? (is )?(ignored|broken|violat|not)', r'(see|sees|attend\w*|leak\w*|look\w*) (at |to )?(the )?future', r'j ?<= ?i', r'j ?>= ?i', r'past'],
        'kind': 'math',
        'single_edit': True}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T, device=device)
    i, j = idx[:, None], idx[None, :]
    mask = (i - j).abs() <= window
    if causal:
        mask = mask & (j >= i)
    return mask
