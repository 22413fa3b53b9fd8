META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "positions start at 1 instead of 0 (row 0 must be sin 0 = 0, cos 0 = 1)",
        "keywords": [r"position", r"start", r"row 0", r"off.by.one", r"shift", r"arange"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(1, max_len + 1, dtype=torch.float32)[:, None]
    angles = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2], pe[:, 1::2] = angles.sin(), angles.cos()
    return pe
