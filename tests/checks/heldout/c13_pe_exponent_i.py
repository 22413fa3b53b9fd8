META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "the exponent uses the pair index i instead of 2i (10000^(i/d_model)), so the frequencies decay only half as fast and the longest wavelength is 2*pi*100 instead of 2*pi*10000", "keywords": [r"2i", r"exponent", r"frequenc", r"wavelength"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]          # (max_len, 1)
    i = torch.arange(d_model // 2, dtype=torch.float32)                  # pair index
    angles = pos / (10000.0 ** (i / d_model))                            # (max_len, d_model // 2)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
