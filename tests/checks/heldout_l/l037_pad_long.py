META = {'exercise': '02.padding_mask',
        'cause': 'returns a long tensor of 0/1, not a boolean mask',
        'keywords': [r'bool', r'dtype', r'\blong\b', r'\bint(64|32)?\b', r'integer'],
        'kind': 'type',
        'single_edit': True}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id).long()[:, None, None, :]
