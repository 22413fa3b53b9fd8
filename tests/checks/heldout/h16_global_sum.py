META = {"exercise": "01.softmax_backward",
        "cause": "the weighted sum runs over the whole tensor instead of per slice along dim: right only for 1-D input",
        "keywords": [r"per (slice|row)|whole tensor|all elements|every element|along dim|\bdim\b|slice|global"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum()
    return y * (grad_y - s)
