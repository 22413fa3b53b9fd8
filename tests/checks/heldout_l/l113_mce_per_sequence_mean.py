META = {'exercise': '06.masked_cross_entropy',
        'cause': 'averages each sequence on its own, then the sequences: tokens of short sequences weigh more',
        'keywords': [r'per[- ]sequence', r'each sequence', r'whole batch', r'short sequence', r'weigh'],
        'kind': 'math',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -log_probs.mean(dim=-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return ((loss * real).sum(-1) / real.sum(-1)).mean()
