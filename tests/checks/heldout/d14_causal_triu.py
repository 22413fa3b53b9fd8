META = {"exercise": "02.causal_mask",
        "cause": "uses .triu() instead of .tril(): True where key >= query, letting every query see the future and not the past",
        "keywords": [r"triu", r"tril", r"upper", r"lower", r"future"]}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).triu()
