META = {"exercise": "07b.temperature_probs",
        "cause": "replaces temperature 0 by a tiny epsilon, so ties share the mass instead of a one-hot at the first argmax",
        "keywords": [r"tie", r"first", r"one.?hot", r"argmax", r"greedy", r"temperature.{0,10}0"]}


def temperature_probs(logits, temperature):
    t = max(temperature, 1e-6)
    return torch.softmax(logits / t, dim=-1)
