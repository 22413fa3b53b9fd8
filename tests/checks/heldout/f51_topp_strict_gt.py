META = {"exercise": "07b.top_p_filter",
        "cause": "removes a token when the mass before it is > p instead of >= p: when the mass before reaches p exactly, one token too many stays (not the smallest set)",
        "keywords": [r">=|reaches|exactly", r"smallest|too many|one more|extra"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    filtered = sorted_logits.masked_fill(before > p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
