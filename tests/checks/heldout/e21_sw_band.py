META = {"exercise": "08.sliding_window_mask", "correct": True,
        "source": "band of a ones matrix with tril(window) & triu(-window), as in Longformer-style band masks; causal via tril(0)"}


def sliding_window_mask(T, window, causal=False, device=None):
    ones = torch.ones(T, T, dtype=torch.bool, device=device)
    upper = 0 if causal else window
    return ones.tril(upper) & ones.triu(-window)
