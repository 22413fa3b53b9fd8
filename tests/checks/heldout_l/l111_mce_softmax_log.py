META = {'exercise': '06.masked_cross_entropy',
        'cause': 'softmax().log() instead of log_softmax: log(0) = -inf for large logits',
        'keywords': [r'log_softmax', r'stab', r'-?inf', r'nan', r'large logits', r'\blarge\b', r'overflow|underflow', r'log\(0\)'],
        'kind': 'math',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.softmax(dim=-1).log()
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -log_probs.mean(dim=-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return (loss * real).sum() / real.sum()
