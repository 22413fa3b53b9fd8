META = {'exercise': '04.sinusoidal_positional_encoding',
        'cause': 'all the sines first, then all the cosines (torch.cat), instead of interleaved even/odd columns',
        'keywords': [r'interleav', r'even', r'odd', r'halves', r'\bcat\b', r'concaten', r'column'],
        'kind': 'math',
        'single_edit': False}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    dtype = torch.float32
    pos = torch.arange(max_len, dtype=dtype)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=dtype)
    angles = pos / 10000 ** (two_i / d_model)
    pe = torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)
    return pe
