META = {'exercise': '00.pairwise_sq_dists',
        'cause': 'the plain expansion |a|^2 + |b|^2 - 2ab without moving the points near 0: float32 cancellation far from the origin',
        'keywords': [r'cancel', r'far from', r'origin', r'shift', r'centr', r"subtract\w* (the |b'?s )?mean", r'precision', r'1000'],
        'kind': 'math',
        'single_edit': False}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    c = b.mean(dim=-2, keepdim=True)
    aa = (a * a).sum(-1)[..., :, None]
    bb = (b * b).sum(-1)[..., None, :]
    d = aa + bb - 2 * (a @ b.transpose(-2, -1))
    return d.clamp_min(0)
