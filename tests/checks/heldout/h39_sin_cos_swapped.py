META = {"exercise": "04.apply_rope",
        "cause": 'sin and cos are swapped in the rotation formula',
        "keywords": [r"sin|cos"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(T, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.sin(), angles.cos()
    a, b = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1)
    return rotated.flatten(-2)
