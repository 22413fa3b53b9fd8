META = {"exercise": "07b.decode",
        "cause": "returns the list of characters, not one string joined from them",
        "keywords": [r"\bstr\b|string", r"list", r"join"]}


def decode(ids, vocab):
    return [vocab[int(i)] for i in ids]
