META = {'exercise': '06.masked_cross_entropy',
        'cause': 'log_softmax of logits.detach(): the loss has no gradient to the logits',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': True}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.detach().log_softmax(dim=-1)
    real = targets != pad_id
    safe = targets.masked_fill(~real, 0)
    nll = -log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -log_probs.mean(dim=-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return (loss * real).sum() / real.sum()
