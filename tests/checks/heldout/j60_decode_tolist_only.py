META = {"exercise": "07b.decode",
        "cause": "calls ids.tolist(), which only works for tensors, so a plain list of ints fails",
        "keywords": [r"list", r"tolist", r"attributeerror"]}


def decode(ids, vocab):
    return "".join(vocab[i] for i in ids.tolist())
