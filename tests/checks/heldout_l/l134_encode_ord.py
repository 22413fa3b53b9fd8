META = {'exercise': '07b.encode',
        'cause': "uses ord(ch), the character's code point, instead of its index in vocab",
        'keywords': [r'ord\(', r'code ?point', r'unicode', r'index in (the )?vocab', r'ascii'],
        'kind': 'text',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([ord(ch) for ch in text], dtype=torch.long)
