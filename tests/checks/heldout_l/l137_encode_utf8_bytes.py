META = {'exercise': '07b.encode',
        'cause': 'iterates over the UTF-8 bytes of text: every non-ASCII character becomes several wrong (or missing) ids',
        'keywords': [r'non-?ascii', r'utf-?8', r'bytes?', r'unicode', r'multi-?byte', r'accent'],
        'kind': 'text',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[chr(b)] for b in text.encode("utf-8")], dtype=torch.long)
