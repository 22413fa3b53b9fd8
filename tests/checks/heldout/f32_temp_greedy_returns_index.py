META = {"exercise": "07b.temperature_probs",
        "cause": "for temperature 0 returns the argmax index (shape (...,)) instead of a one-hot row of probabilities",
        "keywords": [r"one.?hot", r"index|indices", r"shape"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return logits.argmax(dim=-1)  # greedy: the likeliest token
    return F.softmax(logits / temperature, dim=-1)
