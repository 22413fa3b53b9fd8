META = {"exercise": "02.causal_mask", "cause": "upper triangle (triu): each query sees the future instead of the past",
        "keywords": [r"triu", r"upper", r"future", r"transpos", r"key <= query", r"j <= i", r"past"]}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).triu()
