META = {"exercise": "07b.top_p_filter",
        "cause": "sorts ascending (forgot descending=True): the least likely tokens are accumulated first and kept, the most likely removed",
        "keywords": [r"descending|ascending", r"most likely|least likely"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
