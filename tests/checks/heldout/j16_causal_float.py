META = {"exercise": "02.causal_mask",
        "cause": "returns a float 0/1 matrix instead of a boolean one",
        "keywords": [r"bool", r"dtype", r"float"]}


def causal_mask(T, device=None):
    return torch.tril(torch.ones(T, T, device=device))
