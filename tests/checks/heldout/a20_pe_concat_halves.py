META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "sin in the first half and cos in the second half instead of interleaved even/odd columns",
        "keywords": [r"interleav", r"even", r"odd", r"column", r"half", r"concat"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len).float().unsqueeze(1)
    div = 10000 ** (torch.arange(0, d_model, 2).float() / d_model)
    return torch.cat([torch.sin(pos / div), torch.cos(pos / div)], dim=-1)
