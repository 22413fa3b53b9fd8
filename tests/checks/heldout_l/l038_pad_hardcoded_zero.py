META = {'exercise': '02.padding_mask',
        'cause': 'compares with 0 instead of pad_id: ignores the pad_id argument',
        'keywords': [r'pad_id', r'zero', r'hard-?coded', r'ignor'],
        'kind': 'math',
        'single_edit': True}


def padding_mask(tokens, pad_id):
    return (tokens != 0)[:, None, None, :]
