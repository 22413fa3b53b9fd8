META = {'exercise': '06.masked_cross_entropy',
        'cause': 'label smoothing spreads eps over the V - 1 other classes instead of eps / V over all V classes',
        'keywords': [r'smooth', r'V ?- ?1', r'all V', r'other classes', r'eps ?/ ?V'],
        'kind': 'math',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = (-log_probs.sum(dim=-1) - nll) / (log_probs.size(-1) - 1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return (loss * real).sum() / real.sum()
