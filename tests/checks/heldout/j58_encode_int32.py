META = {"exercise": "07b.encode",
        "cause": "returns int32 ids instead of torch.long",
        "keywords": [r"int32", r"long|int64", r"dtype"]}


def encode(text, vocab):
    return torch.tensor([vocab.index(ch) for ch in text], dtype=torch.int32)
