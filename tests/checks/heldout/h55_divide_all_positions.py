META = {"exercise": "06.masked_cross_entropy",
        "cause": 'the masked sum is divided by the number of all positions instead of the number of non-padding positions',
        "keywords": [r"denominator|divide|count|number of (real|non-?pad)|real\.sum|all positions|padding (shrinks|counted)|mean over"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.numel()
