META = {"exercise": "01.softmax_backward",
        "cause": "the weighted sum is taken without keepdim=True, so it broadcasts along the wrong axis (or fails)",
        "keywords": [r"keepdim|broadcast|shape of the sum|align"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=dim)
    return y * (grad_y - s)
