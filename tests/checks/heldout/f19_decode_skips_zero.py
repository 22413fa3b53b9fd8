META = {"exercise": "07b.decode",
        "cause": "skips id 0 as if it were padding: the first character of the vocabulary never comes back",
        "keywords": [r"\b0\b|zero", r"padding|skip|drop|missing", r"first character"]}


def decode(ids, vocab):
    return "".join(vocab[i] for i in (int(j) for j in ids) if i != 0)  # 0 is padding
