META = {"exercise": "06.masked_cross_entropy",
        "cause": 'averages per sequence first and then over the sequences, so tokens of short sequences weigh more',
        "keywords": [r"per.sequence|sequence by sequence|short sequence|weigh|whole batch|mean of means|each row"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    if targets.dim() == 1:
        return (per_position * real).sum() / real.sum()
    per_seq = (per_position * real).sum(-1) / real.sum(-1).clamp_min(1)
    return per_seq.mean()
