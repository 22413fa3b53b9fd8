META = {'exercise': '01.softmax_backward',
        'cause': 'builds the full T x T Jacobian diag(y) - y yᵀ for every slice, which the exercise forbids',
        'keywords': [r'jacobian', r'T ?[x×] ?T', r'memory', r'matrix', r'largest tensor'],
        'kind': 'math',
        'single_edit': False}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    yl, gl = y.movedim(dim, -1), grad_y.movedim(dim, -1)
    jac = torch.diag_embed(yl) - yl[..., :, None] * yl[..., None, :]
    grad_x = (jac @ gl[..., None]).squeeze(-1)
    return grad_x.movedim(-1, dim)
