META = {"exercise": "04.apply_rope",
        "cause": 'positions run 1..T instead of 0..T-1, so position 0 is rotated',
        "keywords": [r"position|from 1|start|off.by.one|0\b|zero|arange"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(1, T + 1, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1)
    return rotated.flatten(-2)
