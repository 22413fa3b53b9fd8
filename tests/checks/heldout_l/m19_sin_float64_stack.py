META = {'exercise': '04.sinusoidal_positional_encoding',
        'correct': True,
        'source': 'float64 angles with torch.outer, sin/cos stacked and interleaved, cast to float32'}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model))
    angles = torch.outer(torch.arange(max_len, dtype=torch.float64), inv_freq)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1).float()
