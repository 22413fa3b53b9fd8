META = {"exercise": "08.sliding_window_mask",
        "cause": "ignores the causal flag: with causal=True the window still includes keys after the query",
        "keywords": [r"causal", r"j\s*<=\s*i", r"future"]}


def sliding_window_mask(T, window, causal=False, device=None):
    idx = torch.arange(T, device=device)
    return (idx[:, None] - idx[None, :]).abs() <= window
