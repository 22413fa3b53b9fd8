META = {'exercise': '04.sinusoidal_positional_encoding',
        'correct': True,
        'source': "PyTorch's transformer tutorial: div_term = exp(arange(0, d, 2) * (-log(10000) / d))"}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe
