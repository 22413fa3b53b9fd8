META = {'exercise': '07b.decode',
        'cause': 'rebuilds the text as bytes(ord(ch) ...).decode(): fails or garbles every non-ASCII character',
        'keywords': [r'non-?ascii', r'utf-?8', r'bytes?', r'unicode', r'ord'],
        'kind': 'text',
        'single_edit': False}


def decode(ids, vocab: str) -> str:
    chars = [vocab[int(i)] for i in ids]
    return bytes(ord(ch) for ch in chars).decode("utf-8", errors="replace")
