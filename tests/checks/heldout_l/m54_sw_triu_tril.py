META = {'exercise': '08.sliding_window_mask',
        'correct': True,
        'source': 'band from torch.ones(...).triu(-window).tril(window) (as Mistral-style mask helpers), tril() when causal'}


def sliding_window_mask(T, window, causal=False, device=None):
    band = torch.ones(T, T, dtype=torch.bool, device=device).triu(-window).tril(window)
    return band.tril() if causal else band
