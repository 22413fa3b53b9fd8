META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "puts all the sines in the first half of the columns and all the cosines in the second half (concatenated) instead of interleaving them, sin on even and cos on odd columns", "keywords": [r"interleav", r"even", r"odd", r"halv|half", r"concat"]}


def sinusoidal_positional_encoding(max_len, d_model):
    position = torch.arange(max_len).float().unsqueeze(1)
    div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    angles = position * div                                   # (max_len, d_model // 2)
    return torch.cat([angles.sin(), angles.cos()], dim=-1)    # (max_len, d_model)
