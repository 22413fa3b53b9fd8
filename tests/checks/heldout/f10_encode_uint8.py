META = {"exercise": "07b.encode",
        "cause": "stores the ids as torch.uint8 (a byte per character, the vocabulary is under 256) instead of torch.long",
        "keywords": [r"uint8|byte", r"torch\.long|int64|long", r"dtype"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.uint8)
