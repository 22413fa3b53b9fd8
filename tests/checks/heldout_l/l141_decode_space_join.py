META = {'exercise': '07b.decode',
        'cause': 'joins the characters with spaces',
        'keywords': [r'space', r'separator', r'join', r'nothing between', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)'],
        'kind': 'text',
        'single_edit': True}


def decode(ids, vocab: str) -> str:
    return " ".join(vocab[int(i)] for i in ids)
