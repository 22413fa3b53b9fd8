META = {'exercise': '04.apply_rope',
        'cause': 'rotates clockwise (the sin terms have the wrong signs)',
        'keywords': [r'clockwise', r'direction', r'the wrong way', r'sign', r'-θ|negative angle', r'invers'],
        'kind': 'math',
        'single_edit': True}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, d = x.shape[-2], x.shape[-1]
    opts = dict(dtype=x.dtype, device=x.device)
    pos = torch.arange(T, **opts)
    inv_freq = base ** (-torch.arange(0, d, 2, **opts) / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos + b * sin, -a * sin + b * cos], dim=-1).flatten(-2)
