META = {'exercise': '01.softmax_backward',
        'cause': 's = grad_y.sum(...) without the factor y: the correction is not the weighted sum',
        'keywords': [r'grad_y ?\* ?y', r'weight', r'factor y', r'without y', r'sum of grad_y'],
        'kind': 'math',
        'single_edit': True}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    s = grad_y.sum(dim=dim, keepdim=True)
    return y * (grad_y - s)
