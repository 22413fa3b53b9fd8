META = {"exercise": "01.softmax", "cause": "the max is taken without keepdim, so it broadcasts along the wrong axis (subtracts a column max from each row)",
        "keywords": [r"max[^.]*keepdim", r"keepdim[^.]*max", r"broadcast"]}


def softmax(x, dim=-1):
    m = x.max(dim=dim).values
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
