META = {"exercise": "07b.top_k_filter",
        "cause": "torch.kthvalue(logits, k) as the threshold: kthvalue is the k-th SMALLEST, so far too many logits stay",
        "keywords": [r"smallest", r"kthvalue", r"largest", r"too many"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.kthvalue(logits, k, dim=-1, keepdim=True).values
    return logits.masked_fill(logits < kth, float("-inf"))
