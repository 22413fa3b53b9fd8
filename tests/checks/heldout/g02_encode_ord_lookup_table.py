META = {"exercise": "07b.encode", "correct": True,
        "source": "a lookup table indexed by code point (vectorised gather), as in byte-level tokenizers"}


def encode(text, vocab):
    codes = [ord(ch) for ch in vocab]
    table = torch.full((max(codes, default=0) + 1,), -1, dtype=torch.long)
    table[torch.tensor(codes, dtype=torch.long)] = torch.arange(len(vocab), dtype=torch.long)
    return table[torch.tensor([ord(ch) for ch in text], dtype=torch.long)]
