META = {"exercise": "04.apply_rope",
        "cause": 'the rotated pairs are put back with torch.cat (all even features first) instead of being interleaved back in place',
        "keywords": [r"interleav|cat|stack|flatten|in place|order|layout|back"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(T, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
