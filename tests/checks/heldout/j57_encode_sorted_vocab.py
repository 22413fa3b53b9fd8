META = {"exercise": "07b.encode",
        "cause": "numbers the characters of sorted(vocab) instead of their positions in vocab as given",
        "keywords": [r"sort", r"order", r"index in vocab", r"position"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(sorted(vocab))}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
