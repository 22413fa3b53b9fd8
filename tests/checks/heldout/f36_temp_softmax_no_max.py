META = {"exercise": "07b.temperature_probs",
        "cause": "softmax written by hand without subtracting the row max: exp overflows to inf for large logits or a small temperature, giving NaN",
        "keywords": [r"overflow|inf/inf|inf ?/ ?inf", r"max|stable|stability", r"nan"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    e = torch.exp(logits / temperature)
    return e / e.sum(dim=-1, keepdim=True)
