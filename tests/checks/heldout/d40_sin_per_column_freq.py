META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "gives every column its own frequency (column j uses 10000^(j/d_model)), so the cos column 2i+1 does not share the frequency of column 2i",
        "keywords": [r"2i\s*\+\s*1", r"pair", r"share", r"frequenc", r"odd col"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    j = torch.arange(d_model, dtype=torch.float32)
    angles = pos / 10000.0 ** (j / d_model)  # (max_len, d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = angles[:, 0::2].sin()
    pe[:, 1::2] = angles[:, 1::2].cos()
    return pe
