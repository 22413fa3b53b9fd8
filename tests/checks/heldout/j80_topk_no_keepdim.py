META = {"exercise": "07b.top_k_filter",
        "cause": "takes the k-th value as values[..., -1] without keeping a column, so it broadcasts across rows instead of within each row",
        "keywords": [r"broadcast", r"column", r"keepdim|\[\.\.\., ?-1:\]", r"row", r"batch"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1]
    return logits.masked_fill(logits < kth, float("-inf"))
