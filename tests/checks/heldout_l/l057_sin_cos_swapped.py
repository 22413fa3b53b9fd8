META = {'exercise': '04.sinusoidal_positional_encoding',
        'cause': 'cos on the even columns and sin on the odd ones: swapped',
        'keywords': [r'swap', r'sin\b.*\bcos', r'cos\b.*\bsin', r'even', r'odd'],
        'kind': 'math',
        'single_edit': False}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    dtype = torch.float32
    pos = torch.arange(max_len, dtype=dtype)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=dtype)
    angles = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=dtype)
    pe[:, 0::2] = torch.cos(angles)
    pe[:, 1::2] = torch.sin(angles)
    return pe
