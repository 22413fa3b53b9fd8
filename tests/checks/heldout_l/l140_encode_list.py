META = {'exercise': '07b.encode',
        'cause': 'returns a Python list, not a tensor',
        'keywords': [r'\blist\b', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return [stoi[ch] for ch in text]
