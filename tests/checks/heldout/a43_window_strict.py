META = {"exercise": "08.sliding_window_mask", "cause": "uses |i - j| < window instead of <= window (off by one at the window's edge)",
        "keywords": [r"<=", r"off.by.one", r"edge", r"boundary", r"window"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device).unsqueeze(1)
    j = torch.arange(T, device=device).unsqueeze(0)
    mask = (i - j).abs() < window
    if causal:
        mask &= j <= i
    return mask
