META = {'exercise': '07b.encode',
        'cause': 'dtype=torch.int32 instead of torch.long',
        'keywords': [r'\blong\b', r'int64', r'int32', r'dtype'],
        'kind': 'device',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.int32)
