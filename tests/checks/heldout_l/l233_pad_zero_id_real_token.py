META = {'exercise': '02.padding_mask',
        'cause': 'sets the padded ids to 0 and then converts ids to bool: a real token whose id is 0 is marked as padding',
        'keywords': [r'id 0', r'zero', r'real token', r'bool\(\)', r'pad_id'],
        'kind': 'math',
        'single_edit': False}


def padding_mask(tokens, pad_id):
    ids = tokens.clone()
    ids[ids == pad_id] = 0
    return ids.bool()[:, None, None, :]
