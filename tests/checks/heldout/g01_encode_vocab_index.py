META = {"exercise": "07b.encode", "correct": True,
        "source": "str.index per character, into torch.LongTensor via an explicit empty fast path"}


def encode(text, vocab):
    if not text:
        return torch.zeros(0, dtype=torch.long)
    return torch.tensor(list(map(vocab.index, text)), dtype=torch.int64)
