META = {"exercise": "08.sliding_window_mask",
        "cause": "uses |i - j| < window, so keys exactly window away are excluded",
        "keywords": [r"<=", r"strict", r"window.{0,20}(edge|boundary|exactly)", r"off.by.one"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j).abs() < window
    if causal:
        mask = mask & (j <= i)
    return mask
