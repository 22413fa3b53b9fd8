META = {"exercise": "02.causal_mask",
        "cause": "returns a float (0/1) tensor, not a boolean one (torch.ones without dtype=torch.bool)",
        "keywords": [r"bool", r"dtype", r"float"]}


def causal_mask(T, device=None):
    return torch.tril(torch.ones(T, T, device=device))
