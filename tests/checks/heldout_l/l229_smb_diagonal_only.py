META = {'exercise': '01.softmax_backward',
        'cause': "uses only the Jacobian's diagonal y(1 - y): the off-diagonal terms -y_i y_j are missing",
        'keywords': [r'diagonal', r'off-?diagonal', r'y ?\( ?1 ?- ?y ?\)', r'outer', r'sum to (0|zero)', r'sums? to (0|zero)'],
        'kind': 'math',
        'single_edit': False}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    local = y * (1 - y)
    return local * grad_y
