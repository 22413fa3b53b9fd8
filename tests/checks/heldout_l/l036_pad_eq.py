META = {'exercise': '02.padding_mask',
        'cause': 'tokens == pad_id: True at the padding, the opposite of True = real token',
        'keywords': [r'invert', r'opposite', r'True at (the )?pad', r'revers', r'flip'],
        'kind': 'math',
        'single_edit': True}


def padding_mask(tokens, pad_id):
    return (tokens == pad_id)[:, None, None, :]
