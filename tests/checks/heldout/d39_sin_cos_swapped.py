META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "puts cos on the even columns and sin on the odd ones",
        "keywords": [r"even", r"odd", r"swap", r"cos.*even|sin.*odd"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = pos / 10000.0 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = angles.cos()
    pe[:, 1::2] = angles.sin()
    return pe
