META = {"exercise": "06.masked_cross_entropy", "correct": True,
        "source": "explicit smoothed target distribution (one_hot*(1-eps) + eps/V), as in the Annotated Transformer's LabelSmoothing, boolean-index mean"}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    V = logits.shape[-1]
    log_probs = F.log_softmax(logits, dim=-1)
    true_dist = F.one_hot(targets, V).to(logits.dtype) * (1 - label_smoothing) + label_smoothing / V
    loss = -(true_dist * log_probs).sum(dim=-1)
    keep = targets.ne(pad_id)
    return loss[keep].mean()
