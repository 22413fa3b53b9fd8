META = {"exercise": "07b.encode",
        "cause": "enumerate(vocab, start=1): ids start at 1 (keeping 0 for padding), every id one too large",
        "keywords": [r"off by one|one too (large|high)|\+ ?1|shifted by one|start(s|ing)? at 1|from 1", r"index in (the )?`?vocab"]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab, start=1)}  # 0 is kept for padding
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
