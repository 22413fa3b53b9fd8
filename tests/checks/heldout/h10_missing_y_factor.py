META = {"exercise": "01.softmax_backward",
        "cause": "the outer factor y is dropped: returns grad_y - sum(grad_y*y) instead of y*(grad_y - sum(grad_y*y))",
        "keywords": [r"multipl\w* by y|factor (of )?y|y \*|times y|missing y|outer y|diag\(y\)"]}


def softmax_backward(y, grad_y, dim=-1):
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    return grad_y - s
