META = {'exercise': '04.apply_rope',
        'cause': 'pairs feature i with feature i + d/2 (GPT-NeoX / rotate_half layout) instead of neighbouring features',
        'keywords': [r'halves', r'half', r'rotate_half', r'neox', r'interleav', r'i ?\+ ?d ?/ ?2', r'layout'],
        'kind': 'math',
        'single_edit': False}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, d = x.shape[-2], x.shape[-1]
    opts = dict(dtype=x.dtype, device=x.device)
    pos = torch.arange(T, **opts)
    inv_freq = base ** (-torch.arange(0, d, 2, **opts) / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
