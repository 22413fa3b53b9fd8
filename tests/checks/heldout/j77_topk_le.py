META = {"exercise": "07b.top_k_filter",
        "cause": "removes logits <= the k-th largest, dropping the k-th itself (and its ties), so only k-1 survive",
        "keywords": [r"<=|less than or equal", r"k-?th", r"k ?- ?1", r"ties?"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits <= kth, float("-inf"))
