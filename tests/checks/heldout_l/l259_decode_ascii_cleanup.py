META = {'exercise': '07b.decode',
        'cause': "passes the result through encode('ascii', 'ignore'): non-ASCII characters are dropped",
        'keywords': [r'non-?ascii', r'ascii', r'unicode', r'dropped', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)'],
        'kind': 'text',
        'single_edit': True}


def decode(ids, vocab: str) -> str:
    return "".join(vocab[int(i)] for i in ids).encode("ascii", "ignore").decode()
