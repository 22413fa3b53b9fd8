META = {"exercise": "07b.encode", "correct": True, "source": "str.find via map, torch.as_tensor with dtype long"}


def encode(text, vocab):
    return torch.as_tensor(list(map(vocab.find, text)), dtype=torch.long)
