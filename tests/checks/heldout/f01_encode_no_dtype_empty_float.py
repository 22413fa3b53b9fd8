META = {"exercise": "07b.encode",
        "cause": "torch.tensor(list) without dtype=torch.long: the empty text gives a float32 tensor (torch.tensor([]) is float)",
        "keywords": [r"empty", r"dtype", r"float", r"torch\.long|int64|long"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text])
