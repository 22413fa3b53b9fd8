META = {"exercise": "07b.temperature_probs",
        "cause": "returns the greedy one-hot as int64 without converting it to the logits' dtype",
        "keywords": [r"dtype", r"int64|long|integer", r"float"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1))
    return torch.softmax(logits / temperature, dim=-1)
