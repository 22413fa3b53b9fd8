META = {'exercise': '06.masked_cross_entropy',
        'cause': 'averages over every position, padding included (the padded positions count as 0)',
        'keywords': [r'pad(ding)? (positions?|tokens?) (count|counted|included|are included)', r'(mean|averag\w*) over (all|every) (the )?positions', r'(includ|count)\w* (the )?pad', r'real\.sum', r'number of (real|non-pad)', r'all positions', r'divid\w* by (the number of|all|every)'],
        'kind': 'math',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -log_probs.mean(dim=-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return (loss * real).mean()
