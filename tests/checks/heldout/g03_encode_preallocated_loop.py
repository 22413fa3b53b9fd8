META = {"exercise": "07b.encode", "correct": True,
        "source": "preallocated torch.empty buffer filled in a loop with str.find"}


def encode(text, vocab):
    out = torch.empty(len(text), dtype=torch.long)
    for j, ch in enumerate(text):
        out[j] = vocab.find(ch)
    return out
