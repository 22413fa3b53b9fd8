META = {"exercise": "07b.decode", "correct": True,
        "source": "itos list and torch.as_tensor(...).tolist(), map over __getitem__"}


def decode(ids, vocab):
    itos = list(vocab)
    return "".join(map(itos.__getitem__, torch.as_tensor(ids, dtype=torch.long).reshape(-1).tolist()))
