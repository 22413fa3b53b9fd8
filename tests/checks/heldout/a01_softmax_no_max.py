META = {"exercise": "01.softmax", "cause": "exp(x) without subtracting the max: overflows to inf/NaN for large inputs",
        "keywords": [r"stab", r"overflow", r"\bmax\b", r"\binf\b", r"nan", r"large"]}


def softmax(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
