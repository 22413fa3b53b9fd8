META = {"exercise": "07b.top_k_filter",
        "cause": "masks logits <= the k-th largest (strict >): the k-th itself is removed, only k - 1 logits stay",
        "keywords": [r"k ?- ?1|k-1|one (too )?few", r"k-th (largest )?itself|the k-th", r">=|<=|strict"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits <= kth, float("-inf"))
