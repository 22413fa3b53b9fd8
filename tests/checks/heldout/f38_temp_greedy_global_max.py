META = {"exercise": "07b.temperature_probs",
        "cause": "greedy compares with logits.max() of the whole tensor, not of each row: only the row holding the global max gets a 1, the others are all zeros",
        "keywords": [r"each row|per row|every row|of its row|row.?wise", r"global|whole tensor", r"sum to 1|sums? to (one|0)|all zeros?"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return (logits == logits.max()).to(logits.dtype)
    return F.softmax(logits / temperature, dim=-1)
