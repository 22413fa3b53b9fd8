META = {"exercise": "07b.encode",
        "cause": "omits dtype=torch.long, so the empty text gives a float32 tensor",
        "keywords": [r"empty", r"dtype", r"long|int64", r"float"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text])
