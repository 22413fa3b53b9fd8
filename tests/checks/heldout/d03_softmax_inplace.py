META = {"exercise": "01.softmax",
        "cause": "works in place on the input (x -= m; x.exp_()), so the caller's tensor is overwritten with the exponentials (and autograd cannot go through a leaf)",
        "keywords": [r"in[- ]place", r"modif(y|ies|ied)", r"overwrit", r"input.*(changed|mutat)", r"mutat"]}


def softmax(x, dim=-1):
    x -= x.amax(dim=dim, keepdim=True)
    x.exp_()
    return x / x.sum(dim=dim, keepdim=True)
