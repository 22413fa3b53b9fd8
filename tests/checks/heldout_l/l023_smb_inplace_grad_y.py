META = {'exercise': '01.softmax_backward',
        'cause': "subtracts s from grad_y in place: the caller's upstream gradient is changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    s = (grad_y * y).sum(dim=dim, keepdim=True)
    grad_y -= s
    return y * grad_y
