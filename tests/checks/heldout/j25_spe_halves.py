META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "puts all the sines in the first half of the columns and the cosines in the second half instead of interleaving them on even/odd columns",
        "keywords": [r"interleav", r"even", r"odd", r"half", r"concat|cat\b"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = pos / 10000 ** (two_i / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1)
