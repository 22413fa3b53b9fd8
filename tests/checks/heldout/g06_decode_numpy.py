META = {"exercise": "07b.decode", "correct": True,
        "source": "numpy fancy indexing into an array of characters"}


def decode(ids, vocab):
    import numpy as np
    if isinstance(ids, torch.Tensor):
        ids = ids.detach().cpu().numpy()
    chars = np.array(list(vocab) or [""], dtype=object)
    return "".join(chars[np.asarray(ids, dtype=np.int64)].tolist())
