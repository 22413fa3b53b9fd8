META = {"exercise": "08.sliding_window_mask",
        "cause": "forgets the absolute value: (i - j) <= window is True for every key after the query, so the window is one-sided (non-causal case allows the whole future)",
        "keywords": [r"abs", r"\|i ?- ?j\||both sides|symmetric", r"future|after the query"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(T, device=device)[None, :]
    mask = (i - j) <= window
    if causal:
        mask = mask & (j <= i)
    return mask
