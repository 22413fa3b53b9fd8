META = {"exercise": "07b.encode",
        "cause": "torch.stack of one 0-d tensor per character: raises on the empty text (stack expects a non-empty list)",
        "keywords": [r"empty"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.stack([torch.tensor(stoi[ch], dtype=torch.long) for ch in text])
