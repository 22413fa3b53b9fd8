META = {'exercise': '04.apply_rope',
        'cause': 'uses 10000 whatever base is given',
        'keywords': [r'(ignor\w*|not used|unused)\W+(\w+\W+){0,3}base', r'base\W+(\w+\W+){0,3}(ignor|not used|unused)', r'always 10000', r'10000', r'ignor'],
        'kind': 'math',
        'single_edit': True}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, d = x.shape[-2], x.shape[-1]
    opts = dict(dtype=x.dtype, device=x.device)
    pos = torch.arange(T, **opts)
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, **opts) / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
