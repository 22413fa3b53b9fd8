META = {"exercise": "07b.encode",
        "cause": "uses the Unicode code point ord(ch) as the id instead of the character's index in vocab",
        "keywords": [r"ord\(|code point|unicode", r"index in (the )?`?vocab", r"position in (the )?`?vocab"]}


def encode(text, vocab):
    return torch.tensor([ord(ch) for ch in text], dtype=torch.long)
