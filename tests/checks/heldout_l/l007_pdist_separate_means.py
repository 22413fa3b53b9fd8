META = {'exercise': '00.pairwise_sq_dists',
        'cause': 'a and b are each shifted by their own mean: distances change unless both move by the same vector',
        'keywords': [r'(same|common|one|single) (vector|shift|mean|offset)', r'own mean', r'each (set|input)', r'shift', r'translat'],
        'kind': 'math',
        'single_edit': True}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    c = b.mean(dim=-2, keepdim=True)
    a = a - a.mean(dim=-2, keepdim=True)
    b = b - c
    aa = (a * a).sum(-1)[..., :, None]
    bb = (b * b).sum(-1)[..., None, :]
    d = aa + bb - 2 * (a @ b.transpose(-2, -1))
    return d.clamp_min(0)
