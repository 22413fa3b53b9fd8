META = {'exercise': '01.softmax',
        'cause': 'x.max(dim=..., keepdim=True) returns (values, indices); subtracting that tuple raises',
        'keywords': [r'values', r'indices', r'namedtuple', r'tuple', r'\.max\('],
        'kind': 'type',
        'single_edit': True}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.max(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
