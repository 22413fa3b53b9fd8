META = {"exercise": "06.masked_cross_entropy", "correct": True,
        "source": "logsumexp formulation on flattened rows with masked_select (fairseq label_smoothed_nll_loss style)"}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    V = logits.size(-1)
    lg = logits.reshape(-1, V)
    t = targets.reshape(-1)
    lse = torch.logsumexp(lg, dim=-1)
    nll = lse - lg[torch.arange(lg.size(0), device=lg.device), t]
    smooth = lse - lg.mean(dim=-1)
    loss = (1.0 - label_smoothing) * nll + label_smoothing * smooth
    keep = t != pad_id
    return torch.masked_select(loss, keep).sum() / keep.sum()
