META = {"exercise": "07b.encode",
        "cause": "builds the lookup from set(vocab): the ids follow the set's arbitrary order, not each character's index in vocab",
        "keywords": [r"index in (the )?`?vocab", r"order", r"set\(", r"position in (the )?`?vocab"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(set(vocab))}  # distinct characters
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
