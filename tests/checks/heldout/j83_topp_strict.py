META = {"exercise": "07b.top_p_filter",
        "cause": "removes a token only when the mass before it exceeds p strictly (>), keeping one extra token when the mass reaches p exactly",
        "keywords": [r">=|at least|reaches", r"strict", r"exactly", r"smallest"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    sorted_logits = sorted_logits.masked_fill(before > p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, sorted_logits)
