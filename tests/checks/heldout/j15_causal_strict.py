META = {"exercise": "02.causal_mask",
        "cause": "uses tril(-1), excluding the diagonal, so a token may not attend to itself (the first row is all False)",
        "keywords": [r"diagonal", r"itself", r"tril\(-1\)", r"strict", r"first row", r"j\s*<\s*i"]}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril(-1)
