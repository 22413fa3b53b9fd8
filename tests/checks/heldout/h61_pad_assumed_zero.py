META = {"exercise": "06.masked_cross_entropy",
        "cause": 'the padding mask is targets > 0 (pad assumed to be id 0), ignoring the pad_id argument',
        "keywords": [r"pad_id|pad id|\b0\b|zero|argument|mask"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets > 0
    return (per_position * real).sum() / real.sum()
