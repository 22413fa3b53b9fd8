META = {'exercise': '07b.decode',
        'correct': True,
        'source': "nanoGPT's itos dict and decode = lambda l: ''.join([itos[i] for i in l])"}


def decode(ids, vocab: str) -> str:
    itos = {i: ch for i, ch in enumerate(vocab)}
    if torch.is_tensor(ids):
        ids = ids.tolist()
    return "".join([itos[i] for i in ids])
