META = {"exercise": "07b.top_p_filter",
        "cause": "removes where the cumulative sum INCLUDING the token exceeds p (cumsum > p, no shift): the token that carries the total past p is removed, and with a small p even the most likely token",
        "keywords": [r"before it|before the token|cumsum ?- ?probs|exclusive|shift", r"carries|past p|reach(es)? p", r"most likely token|top token|at least one|always kept"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    remove = probs.cumsum(-1) > p
    filtered = sorted_logits.masked_fill(remove, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
