META = {"exercise": "07b.decode",
        "cause": "vocab[i - 1]: treats ids as starting at 1, every character shifted one place back in the vocabulary (and id 0 wraps to the last character)",
        "keywords": [r"off by one|one (place|character)|shifted|- ?1", r"inverse of `?encode|index", r"vocab\[i\]|vocab\[int"]}


def decode(ids, vocab):
    return "".join(vocab[int(i) - 1] for i in ids)
