META = {'exercise': '07b.decode',
        'cause': 'returns a list of characters, not a string',
        'keywords': [r'\bstr(ing)?\b', r'\blist\b', r'join', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': True}


def decode(ids, vocab: str) -> str:
    return [vocab[int(i)] for i in ids]
