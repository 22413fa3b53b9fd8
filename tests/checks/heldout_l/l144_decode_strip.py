META = {'exercise': '07b.decode',
        'cause': 'strips the decoded text: leading and trailing spaces and newlines are lost',
        'keywords': [r'strip', r'whitespace', r'space', r'newline', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)'],
        'kind': 'text',
        'single_edit': True}


def decode(ids, vocab: str) -> str:
    return "".join(vocab[int(i)] for i in ids).strip()
