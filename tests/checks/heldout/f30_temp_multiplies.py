META = {"exercise": "07b.temperature_probs",
        "cause": "multiplies the logits by the temperature instead of dividing: tau < 1 flattens and tau > 1 sharpens, the wrong way round",
        "keywords": [r"divid|/ ?temperature|logits ?/", r"multipl|\* ?temperature", r"sharpen|flatten|wrong way|inverse"]}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return F.softmax(logits * temperature, dim=-1)
