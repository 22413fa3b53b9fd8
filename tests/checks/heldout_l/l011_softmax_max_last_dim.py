META = {'exercise': '01.softmax',
        'cause': 'the max is taken along the last dim whatever dim is: slices along another dim get different offsets',
        'keywords': [r'(wrong|another|other|ignor\w*|last|first) (dim|axis)', r'\bdim( argument| is ignored)', r'last dim', r'axis'],
        'kind': 'math',
        'single_edit': True}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
