META = {"exercise": "06.masked_cross_entropy",
        "cause": "the smoothing term sums only over the non-target classes, leaving out the target's eps/V share",
        "keywords": [r"target('s)? (class|share)|all (V )?classes|includ|non-target|every class|other classes"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    V = logits.shape[-1]
    uniform = (-log_probs.sum(dim=-1) - nll) / V
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
