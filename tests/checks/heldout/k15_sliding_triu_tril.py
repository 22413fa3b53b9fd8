META = {"exercise": "08.sliding_window_mask", "correct": True, "source": "band of ones via triu(-window).tril(window), tril() for causal"}


def sliding_window_mask(T, window, causal=False, device=None):
    band = torch.ones(T, T, dtype=torch.bool, device=device).triu(-window).tril(window)
    return band.tril() if causal else band
