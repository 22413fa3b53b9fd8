META = {'exercise': '02.causal_mask',
        'correct': True,
        'source': 'broadcast comparison of position indices (as in sliding-window code)'}


def causal_mask(T, device=None):
    i = torch.arange(T, device=device)
    return i[:, None] >= i[None, :]
