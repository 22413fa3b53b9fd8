META = {"exercise": "08.sliding_window_mask",
        "cause": "the causal condition keeps j >= i (the future) instead of j <= i",
        "keywords": [r"causal", r"future", r"j\s*<=\s*i|j\s*>=\s*i", r"upper|lower"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j).abs() <= window
    if causal:
        mask = mask & (j >= i)
    return mask
