META = {'exercise': '00.pairwise_sq_dists',
        'cause': 'no clamp at 0: rounding leaves tiny negative squared distances where points coincide',
        'keywords': [r'negative', r'clamp', r'never below', r'below (0|zero)'],
        'kind': 'math',
        'single_edit': True}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    c = b.mean(dim=-2, keepdim=True)
    a = a - c
    b = b - c
    aa = (a * a).sum(-1)[..., :, None]
    bb = (b * b).sum(-1)[..., None, :]
    d = aa + bb - 2 * (a @ b.transpose(-2, -1))
    return d
