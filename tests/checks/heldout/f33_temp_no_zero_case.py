META = {"exercise": "07b.temperature_probs",
        "cause": "no special case for temperature 0: logits / 0 gives inf and nan, the probabilities are NaN instead of a one-hot at the argmax",
        "keywords": [r"temperature ?(==|=) ?0|temperature 0|tau ?= ?0|τ ?= ?0|zero temperature", r"nan|divi(de|sion) by (zero|0)", r"one.?hot|greedy"]}


def temperature_probs(logits, temperature):
    return F.softmax(logits / temperature, dim=-1)
