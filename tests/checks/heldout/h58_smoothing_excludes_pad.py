META = {"exercise": "06.masked_cross_entropy",
        "cause": 'the label-smoothing average leaves out the pad_id class (averages over V-1 classes) although the sum runs over all V',
        "keywords": [r"pad_id'?s? (class|column)|all V|V ?- ?1|every class|includ|exclud"]}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    V = logits.shape[-1]
    keep = torch.ones(V, dtype=torch.bool, device=logits.device)
    keep[pad_id] = False
    uniform = -log_probs[..., keep].mean(dim=-1)
    per_position = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return (per_position * real).sum() / real.sum()
