META = {"exercise": "06.masked_cross_entropy",
        "cause": 'gathers along dim 1 (hard-coded for (N, V) logits) instead of the last dim, wrong for (B, T, V)',
        "keywords": [r"gather|dim|axis|\(B, ?T, ?V\)|3-?d|last dim|-1"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    uniform = -log_probs.mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
