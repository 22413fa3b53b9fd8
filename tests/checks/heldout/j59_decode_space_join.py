META = {"exercise": "07b.decode",
        "cause": "joins the characters with a space between them instead of nothing",
        "keywords": [r"space", r"join", r"separator|between"]}


def decode(ids, vocab):
    return " ".join(vocab[int(i)] for i in ids)
