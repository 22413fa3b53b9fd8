META = {"exercise": "02.causal_mask",
        "cause": "keeps the upper triangle (triu), letting each query see the future instead of the past",
        "keywords": [r"triu", r"upper", r"future", r"transpos", r"j\s*>=?\s*i|j\s*<=?\s*i", r"lower"]}


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).triu()
