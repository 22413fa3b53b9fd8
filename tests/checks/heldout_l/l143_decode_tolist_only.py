META = {'exercise': '07b.decode',
        'cause': 'calls ids.tolist(): fails for a list of ints, which the text allows',
        'keywords': [r'\blist\b', r'tolist', r'AttributeError', r'list of ints'],
        'kind': 'type',
        'single_edit': True}


def decode(ids, vocab: str) -> str:
    return "".join(vocab[int(i)] for i in ids.tolist())
