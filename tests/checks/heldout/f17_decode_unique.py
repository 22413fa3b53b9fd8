META = {"exercise": "07b.decode",
        "cause": "iterates over torch.unique(ids): repeated ids are dropped and the rest sorted, the order of the text is lost",
        "keywords": [r"unique|repeat|duplicate", r"order", r"every id|each id"]}


def decode(ids, vocab):
    return "".join(vocab[int(i)] for i in torch.unique(torch.as_tensor(ids, dtype=torch.long)))
