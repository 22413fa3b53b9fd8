META = {'exercise': '07b.encode',
        'cause': 'no dtype: the empty text gives a float32 tensor',
        'keywords': [r'empty', r'\blong\b', r'dtype', r'\bfloat\b(?!\()'],
        'kind': 'type',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text])
