META = {'exercise': '07b.encode',
        'correct': True,
        'source': "nanoGPT's shakespeare_char prepare.py (stoi dict, encode = lambda s: [stoi[c] for c in s]) as a long tensor"}


def encode(text: str, vocab: str) -> torch.Tensor:
    stoi = {ch: i for i, ch in enumerate(vocab)}
    enc = lambda s: [stoi[c] for c in s]
    return torch.tensor(enc(text), dtype=torch.long)
