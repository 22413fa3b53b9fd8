META = {'exercise': '00.pairwise_sq_dists',
        'cause': "shifts a and b in place (a -= c): the caller's points are moved",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': True}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    c = b.mean(dim=-2, keepdim=True)
    a -= c
    b = b - c
    aa = (a * a).sum(-1)[..., :, None]
    bb = (b * b).sum(-1)[..., None, :]
    d = aa + bb - 2 * (a @ b.transpose(-2, -1))
    return d.clamp_min(0)
