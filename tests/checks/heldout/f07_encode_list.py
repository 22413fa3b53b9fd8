META = {"exercise": "07b.encode",
        "cause": "returns a Python list of ids instead of a torch tensor",
        "keywords": [r"list", r"tensor", r"torch\.long|LongTensor"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return [stoi[ch] for ch in text]
