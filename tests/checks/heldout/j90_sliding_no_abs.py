META = {"exercise": "08.sliding_window_mask",
        "cause": "forgets the absolute value, i - j <= window, so every future key is allowed in the non-causal mask",
        "keywords": [r"abs", r"\|i ?- ?j\|", r"future", r"symmetr", r"both sides"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j) <= window
    if causal:
        mask = mask & (j <= i)
    return mask
