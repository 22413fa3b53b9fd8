META = {"exercise": "07b.encode",
        "cause": "returns a (1, len(text)) tensor with a batch dimension instead of the 1-D (len(text),)",
        "keywords": [r"shape", r"1-?D|one-dimensional|\(len\(text\),\)", r"batch dim|extra dim|\(1, "]}


def encode(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return torch.tensor([[stoi[ch] for ch in text]], dtype=torch.long)  # (1, T), ready for the model
