META = {"exercise": "01.softmax_backward",
        "cause": "computes the result in place in grad_y (sub_, mul_), overwriting the caller's gradient tensor",
        "keywords": [r"in[- ]?place|modif|mutat|overwr|sub_|mul_|grad_y (was|is) changed"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    return grad_y.sub_(s).mul_(y)
