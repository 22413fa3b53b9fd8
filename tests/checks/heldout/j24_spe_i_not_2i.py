META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "uses the pair index i instead of 2i in the exponent, 10000^(i/d_model), so the frequencies decay half as fast",
        "keywords": [r"2i", r"exponent", r"frequenc", r"10000"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)
    angles = pos / 10000 ** (i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = angles.sin()
    pe[:, 1::2] = angles.cos()
    return pe
