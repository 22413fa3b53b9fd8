META = {'exercise': '04.apply_rope',
        'cause': "positions and frequencies are made on the CPU, not on x's device",
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, d = x.shape[-2], x.shape[-1]
    opts = dict(dtype=x.dtype)
    pos = torch.arange(T, **opts)
    inv_freq = base ** (-torch.arange(0, d, 2, **opts) / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
