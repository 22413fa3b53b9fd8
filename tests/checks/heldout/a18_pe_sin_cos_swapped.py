META = {"exercise": "04.sinusoidal_positional_encoding", "cause": "cos on the even columns and sin on the odd ones (swapped)",
        "keywords": [r"\bsin", r"\bcos", r"even", r"odd", r"swap"]}


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len).float().unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2).float() / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.cos(pos / div)
    pe[:, 1::2] = torch.sin(pos / div)
    return pe
