META = {'exercise': '01.softmax_backward',
        'cause': "returns y * grad_y: the term -y * sum(grad_y * y) of the Jacobian's outer product is missing",
        'keywords': [r'sum\(grad_y ?\* ?y\)', r'outer', r'y ?y\^?ᵀ|y y\^T', r'missing (the )?(term|sum)', r'sum to (0|zero)', r'sums? to (0|zero)', r'second term'],
        'kind': 'math',
        'single_edit': True}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    return y * grad_y
