META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "exponent i/d_model instead of 2i/d_model: the frequencies are wrong",
        "keywords": [r"frequenc", r"exponent", r"2i", r"10000", r"wavelength"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len).float().unsqueeze(1)
    i = torch.arange(d_model // 2).float()
    angles = pos / 10000 ** (i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
