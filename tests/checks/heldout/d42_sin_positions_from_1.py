META = {"exercise": "04.sinusoidal_positional_encoding",
        "cause": "numbers positions from 1 (torch.arange(1, max_len + 1)), so row pos holds PE_{pos+1} and row 0 is not [0, 1, 0, 1, ...]",
        "keywords": [r"position 0", r"from 1", r"off.by.one", r"row 0|first row", r"shift"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(1, max_len + 1, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = pos / 10000.0 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = angles.sin()
    pe[:, 1::2] = angles.cos()
    return pe
