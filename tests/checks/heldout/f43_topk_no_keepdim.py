META = {"exercise": "07b.top_k_filter",
        "cause": "the k-th value taken as values[..., -1], shape (...,) instead of a column (..., 1): for a batch it broadcasts along the vocabulary, comparing each logit with another row's threshold",
        "keywords": [r"column|\(\.\.\., ?1\)|keepdim|-1:", r"broadcast", r"other row|each row|its row|per row"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1]
    return logits.masked_fill(logits < kth, float("-inf"))
