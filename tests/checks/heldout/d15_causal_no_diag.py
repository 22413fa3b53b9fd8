META = {"exercise": "02.causal_mask",
        "cause": "tril(-1) excludes the diagonal, so a token cannot attend to itself (and query 0 has no key at all)",
        "keywords": [r"diagonal", r"itself", r"tril\(-1\)", r"j\s*<=\s*i|key\s*<=\s*query", r"empty row"]}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril(-1)
