META = {'exercise': '07b.encode',
        'cause': 're-sorts the vocabulary: the ids are wrong for a vocab that is not given in sorted order',
        'keywords': [r'sort', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'index in (the )?vocab', r'any order'],
        'kind': 'math',
        'single_edit': True}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(sorted(vocab))}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
