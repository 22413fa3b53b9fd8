META = {"exercise": "07b.top_k_filter",
        "cause": "the k-th value read from an ascending sort (sort().values[..., k-1]): that is the k-th smallest, not the k-th largest",
        "keywords": [r"smallest", r"descending|ascending|sort", r"largest", r"too many"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = logits.sort(dim=-1).values[..., k - 1:k]
    return logits.masked_fill(logits < kth, float("-inf"))
