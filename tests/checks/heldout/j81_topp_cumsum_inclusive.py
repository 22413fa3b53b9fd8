META = {"exercise": "07b.top_p_filter",
        "cause": "removes a token when the cumulative probability including itself reaches p, dropping the token that crosses p (and possibly the top token)",
        "keywords": [r"before", r"cross", r"inclusive|including", r"most likely", r"cumsum"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    cum = sorted_logits.softmax(-1).cumsum(-1)
    sorted_logits = sorted_logits.masked_fill(cum >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, sorted_logits)
