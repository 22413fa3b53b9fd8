META = {'exercise': '06.masked_cross_entropy',
        'cause': 'returns loss.item(), a Python float: not a tensor, and no gradient',
        'keywords': [r'\bfloat\b(?!\()', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'item\(\)', r'0-?d', r'gradient'],
        'kind': 'type',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -log_probs.mean(dim=-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return ((loss * real).sum() / real.sum()).item()
