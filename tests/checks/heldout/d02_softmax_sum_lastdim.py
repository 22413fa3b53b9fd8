META = {"exercise": "01.softmax",
        "cause": "the max is taken along dim but the normalizing sum is always over the last dimension (dim=-1 hard-coded); wrong whenever dim is not the last dimension",
        "keywords": [r"\bdim\b", r"last dim", r"sum.*(along|over)", r"normaliz.*dim", r"dim\s*=\s*-1"]}


def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(-1, keepdim=True)
