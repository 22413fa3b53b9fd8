META = {"exercise": "07b.top_p_filter",
        "cause": "no sorting: accumulates probabilities in vocabulary order, so the kept set is the first tokens of the vocabulary, not the most likely",
        "keywords": [r"sort", r"most likely|descending"]}


def top_p_filter(logits, p):
    probs = logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    return logits.masked_fill(before >= p, float("-inf"))
