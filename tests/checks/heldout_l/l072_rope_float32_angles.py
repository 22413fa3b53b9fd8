META = {'exercise': '04.apply_rope',
        'cause': 'positions and frequencies are made in float32: a float64 input loses float64 accuracy',
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)', r'accura'],
        'kind': 'device',
        'single_edit': True}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, d = x.shape[-2], x.shape[-1]
    opts = dict(dtype=torch.float32, device=x.device)
    pos = torch.arange(T, **opts)
    inv_freq = base ** (-torch.arange(0, d, 2, **opts) / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
