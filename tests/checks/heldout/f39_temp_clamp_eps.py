META = {"exercise": "07b.temperature_probs",
        "cause": "temperature 0 replaced by a tiny epsilon (max(temperature, 1e-6)) instead of the argmax: ties split the mass, and logits closer than about 1e-5 are not one-hot",
        "keywords": [r"one.?hot|exactly one", r"tie|split|epsilon|eps|1e-", r"argmax"]}


def temperature_probs(logits, temperature):
    temperature = max(temperature, 1e-6)  # avoid dividing by zero; tiny tau is greedy anyway
    return F.softmax(logits / temperature, dim=-1)
