META = {'exercise': '08.sliding_window_mask',
        'cause': 'causal=True is ignored',
        'keywords': [r'not causal', r'causal(ity)? (is )?(ignored|broken|violat|not)', r'(see|sees|attend\w*|leak\w*|look\w*) (at |to )?(the )?future', r'future', r'j ?<= ?i'],
        'kind': 'math',
        'single_edit': False}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T, device=device)
    i, j = idx[:, None], idx[None, :]
    mask = (i - j).abs() <= window
    return mask
