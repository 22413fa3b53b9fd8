META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "uses i instead of 2i in the exponent (torch.arange(d_model // 2) / d_model), so the frequencies decay half as fast as 10000^(-2i/d_model)",
        "keywords": [r"2i", r"frequenc", r"exponent"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)
    angles = pos / 10000.0 ** (i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
