META = {"exercise": "07b.decode", "correct": True,
        "source": "string concatenation in a plain loop, operator.index on each id"}


def decode(ids, vocab):
    import operator
    out = ""
    for i in ids:
        out += vocab[operator.index(i)]
    return out
