META = {"exercise": "01.softmax_backward",
        "cause": "uses only the Jacobian's diagonal y_i(1 - y_i), dropping the off-diagonal -y_i y_j terms",
        "keywords": [r"diagonal|off-?diag|1 ?- ?y|y ?y\^?T|outer|cross term|sum\(grad_y ?\* ?y\)|weighted sum"]}


def softmax_backward(y, grad_y, dim=-1):
    return grad_y * y * (1 - y)
