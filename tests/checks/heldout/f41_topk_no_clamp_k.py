META = {"exercise": "07b.top_k_filter",
        "cause": "no k = min(k, vocab_size): torch.topk raises when k is larger than the row",
        "keywords": [r"k ?>=? ?vocab|larger than|min\(k|vocab_size|out of range|too large|k > "]}


def top_k_filter(logits, k):
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))
