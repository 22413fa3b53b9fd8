META = {"exercise": "07b.top_p_filter",
        "cause": "writes -inf into the caller's logits in place (logits[remove] = -inf) and returns them",
        "keywords": [r"in.?place", r"chang|modif|overwr|mutat", r"caller|input"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    remove_sorted = (probs.cumsum(-1) - probs) >= p
    remove = remove_sorted.scatter(-1, indices, remove_sorted)
    logits[remove] = float("-inf")
    return logits
