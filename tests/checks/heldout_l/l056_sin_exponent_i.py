META = {'exercise': '04.sinusoidal_positional_encoding',
        'cause': 'the exponent is i / d_model instead of 2i / d_model: the frequencies fall half as fast',
        'keywords': [r'frequenc', r'exponent', r'2i ?/ ?d_model', r'10000', r'wavelength', r'period'],
        'kind': 'math',
        'single_edit': True}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    dtype = torch.float32
    pos = torch.arange(max_len, dtype=dtype)[:, None]
    two_i = torch.arange(d_model // 2, dtype=dtype)
    angles = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=dtype)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
