META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "builds the table in float64 (double aranges) and returns it without converting to float32",
        "keywords": [r"float32", r"float64|double", r"dtype"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angles = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = angles.sin()
    pe[:, 1::2] = angles.cos()
    return pe
