META = {"exercise": "01.softmax",
        "cause": "subtracts the maximum of the whole tensor (x.max()) instead of the maximum of each slice along dim; rows far below the global max underflow to 0/0 = NaN (shows only when slices have very different ranges)",
        "keywords": [r"slice", r"along\s+`?dim", r"each (row|slice)", r"global|whole tensor|overall max", r"underflow"]}


def softmax(x, dim=-1):
    m = x.max()  # the largest value, subtracted so that exp never overflows
    e = (x - m).exp()
    return e / e.sum(dim=dim, keepdim=True)
