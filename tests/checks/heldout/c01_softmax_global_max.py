META = {"exercise": "01.softmax", "cause": "subtracts the maximum of the whole tensor instead of the maximum of each slice along dim, so a slice far below the global max underflows to 0/0 = NaN", "keywords": [r"each (row|slice)", r"per[- ]?(row|slice)", r"global", r"whole tensor", r"underflow"]}


def softmax(x, dim=-1):
    # shift by the largest value so that exp never overflows
    shifted = x - x.max()
    e = shifted.exp()
    return e / e.sum(dim=dim, keepdim=True)
