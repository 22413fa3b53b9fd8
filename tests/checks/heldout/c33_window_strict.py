META = {"exercise": "08.sliding_window_mask", "cause": "uses |i - j| < window instead of <= window, so the keys exactly window positions away are blocked (the window is one too narrow)", "keywords": [r"<=|≤", r"off[- ]by[- ]one", r"inclusive", r"too narrow|one too (small|narrow)", r"exactly window"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j).abs() < window
    if causal:
        mask = mask & (j <= i)
    return mask
