META = {"exercise": "07b.decode",
        "cause": "calls ids.tolist(): works for a tensor, raises AttributeError for a plain list of ints",
        "keywords": [r"list of ints|python list|a list", r"tolist"]}


def decode(ids, vocab):
    return "".join(vocab[i] for i in ids.tolist())
