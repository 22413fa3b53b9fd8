META = {'exercise': '06.masked_cross_entropy',
        'cause': 'F.one_hot(targets) without num_classes: the smoothed target has max(targets) + 1 classes, not V',
        'keywords': [r'num_classes', r'one_hot', r'classes', r'shape'],
        'kind': 'math',
        'single_edit': False}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    V = logits.size(-1)
    log_probs = logits.log_softmax(-1)
    target_dist = (1 - label_smoothing) * F.one_hot(targets).to(logits.dtype) + label_smoothing / V
    loss = -(target_dist * log_probs).sum(-1)
    real = (targets != pad_id).to(logits.dtype)
    return (loss * real).sum() / real.sum()
