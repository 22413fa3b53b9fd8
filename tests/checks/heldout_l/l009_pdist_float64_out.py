META = {'exercise': '00.pairwise_sq_dists',
        'cause': 'computes in float64 and returns float64 for float32 inputs',
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': False}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a, b = a.double(), b.double()
    aa = (a * a).sum(-1)[..., :, None]
    bb = (b * b).sum(-1)[..., None, :]
    d = aa + bb - 2 * (a @ b.transpose(-2, -1))
    return d.clamp_min(0)
