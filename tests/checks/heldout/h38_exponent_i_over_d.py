META = {"exercise": "04.apply_rope",
        "cause": 'the frequency exponent is -i/d (i = 0..d/2-1) instead of -2i/d, so every frequency but the first is too high',
        "keywords": [r"exponent|2i|2 ?\* ?i|frequenc|omega|ω"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(d // 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(T, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1)
    return rotated.flatten(-2)
