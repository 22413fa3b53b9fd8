META = {"exercise": "07b.top_p_filter",
        "cause": "accumulates the sorted logits themselves instead of their softmax probabilities",
        "keywords": [r"softmax", r"probabilit"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    before = sorted_logits.cumsum(-1) - sorted_logits
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
