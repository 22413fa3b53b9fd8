META = {"exercise": "06.masked_cross_entropy",
        "cause": 'label_smoothing is ignored: the plain negative log-likelihood is returned',
        "keywords": [r"smooth|epsilon|ε|label_smoothing"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    per_position = nll
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
