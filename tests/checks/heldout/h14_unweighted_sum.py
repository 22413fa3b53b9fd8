META = {"exercise": "01.softmax_backward",
        "cause": "subtracts the plain sum of grad_y instead of the y-weighted sum sum(grad_y * y)",
        "keywords": [r"weight|grad_y ?\* ?y|y-?weighted|sum\(g.?y\)|dot product"]}


def softmax_backward(y, grad_y, dim=-1):
    s = grad_y.sum(dim=dim, keepdim=True)
    return y * (grad_y - s)
