META = {'exercise': '01.softmax',
        'cause': 'subtracts the maximum of the whole tensor, not of each slice: a slice far below it underflows to 0/0',
        'keywords': [r'slice', r'global', r'whole tensor', r'each (row|slice)', r'per[- ](row|slice)', r'underflow', r'along dim'],
        'kind': 'math',
        'single_edit': True}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.max()
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
