META = {"exercise": "04.apply_rope",
        "cause": 'positions and frequencies are built in the default float32 (no dtype=x.dtype), so a float64 input loses accuracy at large positions',
        "keywords": [r"dtype|float64|float32|precision|accura|double"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, device=x.device).float()
    positions = torch.arange(T, device=x.device).float()[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1)
    return rotated.flatten(-2)
