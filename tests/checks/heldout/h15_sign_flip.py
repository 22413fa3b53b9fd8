META = {"exercise": "01.softmax_backward",
        "cause": "the sign is flipped: y*(s - grad_y) instead of y*(grad_y - s)",
        "keywords": [r"sign|negat|opposite|flipped|minus"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    return y * (s - grad_y)
