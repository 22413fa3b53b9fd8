META = {"exercise": "01.softmax",
        "cause": "casts the input to float32 (x.float()) before computing, so a float64 input comes back as float32 with float32 precision",
        "keywords": [r"dtype", r"float64", r"float32", r"precision", r"double"]}


def softmax(x, dim=-1):
    x = x.float()  # make sure we work with floats
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)
