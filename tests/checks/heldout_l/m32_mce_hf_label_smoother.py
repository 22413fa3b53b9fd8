META = {'exercise': '06.masked_cross_entropy',
        'correct': True,
        'source': "Hugging Face Trainer's LabelSmoother (padding_mask, nll and smoothed terms, divided by active elements)"}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    epsilon = label_smoothing
    log_probs = -F.log_softmax(logits, dim=-1)
    labels = targets.unsqueeze(-1)
    padding_mask = labels.eq(pad_id)
    labels = torch.clamp(labels.masked_fill(padding_mask, 0), min=0)
    nll_loss = log_probs.gather(dim=-1, index=labels)
    smoothed_loss = log_probs.sum(dim=-1, keepdim=True, dtype=log_probs.dtype)
    nll_loss = nll_loss.masked_fill(padding_mask, 0.0)
    smoothed_loss = smoothed_loss.masked_fill(padding_mask, 0.0)
    num_active_elements = padding_mask.numel() - padding_mask.long().sum()
    nll_loss = nll_loss.sum() / num_active_elements
    smoothed_loss = smoothed_loss.sum() / (num_active_elements * log_probs.shape[-1])
    return (1 - epsilon) * nll_loss + epsilon * smoothed_loss
