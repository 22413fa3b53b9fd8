META = {"exercise": "01.softmax_backward",
        "cause": "the sum is always over the last axis, ignoring the dim argument",
        "keywords": [r"\bdim\b|axis|dimension|-1"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=-1, keepdim=True)
    return y * (grad_y - s)
