META = {"exercise": "07b.top_p_filter",
        "cause": "sets the removed logits to 0 instead of -inf, so they keep probability after the softmax",
        "keywords": [r"-inf|minus infinity|negative infinity", r"\b0\b|zero"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    filtered = sorted_logits.masked_fill(before >= p, 0.0)
    return torch.empty_like(logits).scatter(-1, indices, filtered)
