META = {'exercise': '04.sinusoidal_positional_encoding',
        'cause': 'builds the table in float64: the text asks for float32',
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': True}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    dtype = torch.float64
    pos = torch.arange(max_len, dtype=dtype)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=dtype)
    angles = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=dtype)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
