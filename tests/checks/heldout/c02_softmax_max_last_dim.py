META = {"exercise": "01.softmax", "cause": "the maximum is always taken over the last dimension (dim=-1) while the exponentials are summed along dim, so for dim != -1 each slice is shifted by different amounts and the result is wrong", "keywords": [r"\bdim\b", r"last dim", r"dim ?= ?-1", r"wrong (dim|axis)", r"along"]}


def softmax(x, dim=-1):
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
