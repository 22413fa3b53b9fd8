META = {"exercise": "04.apply_rope",
        "cause": 'each rotated pair is written back in the wrong order (the second feature first)',
        "keywords": [r"order|swap|pair|stack|\(2i, ?2i ?\+ ?1\)|written back"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(T, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([a * sin + b * cos, a * cos - b * sin], dim=-1)
    return rotated.flatten(-2)
