META = {"exercise": "07b.top_p_filter",
        "cause": "unsorts with gather(-1, indices) instead of scatter: applies the sort permutation a second time instead of its inverse",
        "keywords": [r"scatter", r"gather", r"inverse|permutation", r"own (token'?s )?position|put (every logit )?back|unsort"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return filtered.gather(-1, indices)
