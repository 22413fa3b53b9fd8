META = {"exercise": "06.masked_cross_entropy",
        "cause": 'the smoothing term sums -log p over the classes instead of averaging (missing the 1/V)',
        "keywords": [r"1 ?/ ?V|mean|average|sum over|divide by V|\bV\b"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.sum(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
