META = {"exercise": "07b.top_p_filter",
        "cause": "unsorts with gather(-1, indices), applying the permutation again instead of inverting it, so logits land at the wrong tokens",
        "keywords": [r"gather", r"scatter", r"unsort", r"permutation", r"position"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    sorted_logits = sorted_logits.masked_fill(before >= p, float("-inf"))
    return sorted_logits.gather(-1, indices)
