META = {"exercise": "01.softmax", "cause": "normalizes over the last dim whatever dim is asked",
        "keywords": [r"\bdim\b", r"dimension", r"axis"]}


def softmax(x, dim=-1):
    shifted = x - x.max(dim=-1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)
