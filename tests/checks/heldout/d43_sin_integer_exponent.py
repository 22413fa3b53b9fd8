META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "integer floor division in the exponent (two_i // d_model is always 0), so every column pair gets frequency 1",
        "keywords": [r"integer", r"//", r"floor", r"frequenc", r"exponent"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angles = pos / 10000 ** (two_i // d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
