META = {"exercise": "08.sliding_window_mask",
        "cause": "uses < window instead of <= window, so keys exactly window positions away are blocked (window=0 blocks even the diagonal)",
        "keywords": [r"<=|≤", r"off.by.one", r"inclusive", r"distance"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j).abs() < window
    if causal:
        mask = mask & (j <= i)
    return mask
