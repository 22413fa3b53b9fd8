META = {"exercise": "07b.encode",
        "cause": "ids made as torch.int32 (\"ints are enough\") instead of torch.long",
        "keywords": [r"int32", r"torch\.long|int64|long", r"dtype"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.int32)
