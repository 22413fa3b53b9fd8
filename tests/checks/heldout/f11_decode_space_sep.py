META = {"exercise": "07b.decode",
        "cause": "joins the characters with a space (\" \".join) instead of nothing between them",
        "keywords": [r"space|separator|between", r"\"\"\.join|''\.join|nothing between"]}


def decode(ids, vocab):
    return " ".join(vocab[int(i)] for i in ids)
