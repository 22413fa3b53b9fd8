META = {"exercise": "01.softmax_backward", "correct": True,
        "source": "the two Jacobian parts written separately, diag(y) g - y (y.g), as in the cs231n / d2l derivation"}


def softmax_backward(y, grad_y, dim=-1):
    diag_part = y * grad_y
    outer_part = y * torch.sum(diag_part, dim=dim, keepdim=True)
    return diag_part - outer_part
