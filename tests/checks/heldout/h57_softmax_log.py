META = {"exercise": "06.masked_cross_entropy",
        "cause": 'uses logits.softmax(-1).log() instead of log_softmax, which gives -inf/inf/NaN for large logits',
        "keywords": [r"log_softmax|stab|overflow|underflow|log\(0\)|inf|nan|large logits"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.softmax(dim=-1).log()
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
