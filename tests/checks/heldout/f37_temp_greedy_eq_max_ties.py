META = {"exercise": "07b.temperature_probs",
        "cause": "greedy row as (logits == row max): a tie for the largest logit gives a row with two ones, not a one-hot (sums to 2)",
        "keywords": [r"tie", r"one.?hot|exactly one|single 1|one 1", r"sum to 1|sums? to (one|2)"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return (logits == logits.max(dim=-1, keepdim=True).values).to(logits.dtype)
    return F.softmax(logits / temperature, dim=-1)
