META = {'exercise': '06.masked_cross_entropy',
        'correct': True,
        'source': 'flattened to (N, V), the real rows selected with a boolean index, logsumexp form'}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    V = logits.size(-1)
    flat, tgt = logits.reshape(-1, V), targets.reshape(-1)
    keep = tgt != pad_id
    flat, tgt = flat[keep], tgt[keep]
    lse = flat.logsumexp(dim=-1)
    nll = lse - flat.gather(1, tgt[:, None])[:, 0]
    uniform = lse - flat.mean(dim=-1)
    return ((1 - label_smoothing) * nll + label_smoothing * uniform).mean()
