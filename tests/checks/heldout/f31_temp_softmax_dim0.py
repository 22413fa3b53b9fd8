META = {"exercise": "07b.temperature_probs",
        "cause": "softmax over dim 0 (the batch) instead of the last dim (the vocabulary): rows do not sum to 1",
        "keywords": [r"last dim|dim ?= ?-1|over the vocab", r"dim ?= ?0|wrong dim|first dim|batch", r"sum to 1|sums? to one"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return F.softmax(logits / temperature, dim=0)
