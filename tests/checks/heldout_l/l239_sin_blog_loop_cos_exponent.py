META = {'exercise': '04.sinusoidal_positional_encoding',
        'cause': "the cosine column uses the exponent 2(i + 1)/d_model instead of sharing its pair's 2i/d_model (a loop slip from well-known blog posts)",
        'keywords': [r'frequenc', r'exponent', r'share', r'same frequency', r'pair', r'2i ?/ ?d_model', r'odd column'],
        'kind': 'math',
        'single_edit': False}


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe
