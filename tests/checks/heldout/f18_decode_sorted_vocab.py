META = {"exercise": "07b.decode",
        "cause": "looks the ids up in sorted(vocab) (the notebook's vocab is sorted, so \"it is the same\"): wrong characters for a vocab that is not sorted",
        "keywords": [r"sort", r"order", r"vocab\[i\]|vocab\[int|index in (the )?`?vocab|as given"]}


def decode(ids, vocab):
    itos = dict(enumerate(sorted(vocab)))
    return "".join(itos[int(i)] for i in ids)
