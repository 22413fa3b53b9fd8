META = {"exercise": "04.apply_rope",
        "cause": 'pairs feature i with feature i + d/2 (rotate_half / GPT-NeoX layout) instead of the interleaved neighbours (2i, 2i+1)',
        "keywords": [r"half|halves|interleav|neox|rotate_half|0::2|neighbou?r|i ?\+ ?d ?/ ?2|layout"]}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=x.dtype, device=x.device)
    positions = torch.arange(T, dtype=x.dtype, device=x.device)[:, None]
    angles = positions * base ** (-two_i / d)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
