META = {'exercise': '07b.encode',
        'cause': 'strips the text first: leading and trailing spaces and newlines are lost',
        'keywords': [r'strip', r'whitespace', r'space', r'newline', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)', r'len\(text\)'],
        'kind': 'text',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    text = text.strip()
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
