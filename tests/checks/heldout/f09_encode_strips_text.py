META = {"exercise": "07b.encode",
        "cause": "cleans the text with text.strip() first: leading and trailing whitespace (spaces, newlines) get no id, the result is shorter than the text",
        "keywords": [r"strip", r"whitespace|space|newline", r"length|len\(text\)|shorter|every character"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([stoi[ch] for ch in text.strip()], dtype=torch.long)
