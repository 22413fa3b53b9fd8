META = {'exercise': '04.apply_rope',
        'cause': 'torch.cat puts all rotated even features first, then the odd ones, instead of interleaving the pairs back',
        'keywords': [r'interleav', r'\bcat\b', r'concaten', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'pairs? (written )?back', r'stack'],
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
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
