META = {"exercise": "02.causal_mask", "cause": "diagonal excluded: a token cannot attend to itself",
        "keywords": [r"diagonal", r"itself", r"self", r"<="]}


def causal_mask(T, device=None):
    return torch.tril(torch.ones(T, T, device=device), diagonal=-1).bool()
