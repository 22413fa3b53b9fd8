META = {"exercise": "07b.temperature_probs",
        "cause": "the greedy one-hot is left as F.one_hot's int64 instead of the logits' dtype",
        "keywords": [r"dtype", r"int64|long|integer", r"\.to\(logits\.dtype\)"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1))
    return F.softmax(logits / temperature, dim=-1)
