META = {"exercise": "07b.temperature_probs",
        "cause": "computes the softmax in float64 for precision and returns float64 instead of the logits' dtype",
        "keywords": [r"dtype", r"float64|double"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return F.softmax(logits.double() / temperature, dim=-1)  # float64: no rounding trouble
