META = {"exercise": "07b.temperature_probs",
        "cause": "multiplies the logits by the temperature instead of dividing by it",
        "keywords": [r"divid", r"multipl", r"temperature"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return torch.softmax(logits * temperature, dim=-1)
