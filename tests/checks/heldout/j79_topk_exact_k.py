META = {"exercise": "07b.top_k_filter",
        "cause": "keeps exactly the k indices that topk returns, so logits tied with the k-th largest are removed",
        "keywords": [r"ties?", r"equal", r"k-?th"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    idx = torch.topk(logits, k, dim=-1).indices
    out = torch.full_like(logits, float("-inf"))
    return out.scatter(-1, idx, logits.gather(-1, idx))
