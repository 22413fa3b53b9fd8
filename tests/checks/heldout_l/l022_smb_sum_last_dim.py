META = {'exercise': '01.softmax_backward',
        'cause': 'sums along the last dim whatever dim is',
        'keywords': [r'(wrong|another|other|ignor\w*|last|first) (dim|axis)', r'\bdim( argument| is ignored)', r'last dim', r'axis'],
        'kind': 'math',
        'single_edit': True}


def softmax_backward(y: torch.Tensor, grad_y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    s = (grad_y * y).sum(dim=-1, keepdim=True)
    return y * (grad_y - s)
