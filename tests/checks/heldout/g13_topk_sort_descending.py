META = {"exercise": "07b.top_k_filter", "correct": True,
        "source": "descending sort, the k-th value as a column, masked_fill"}


def top_k_filter(logits, k):
    k = max(1, min(k, logits.size(-1)))
    kth = logits.sort(dim=-1, descending=True).values[..., k - 1].unsqueeze(-1)
    return logits.masked_fill(logits < kth, float("-inf"))
